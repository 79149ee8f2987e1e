//! LevelDB's own account of its background work, read from the info log (`LOG`) it keeps in
//! the database directory: every memtable written out (`Level-0 table #N: started` … `#N: B
//! bytes OK`) and every compaction (`Compacting …` … `Compacted … => B bytes`), each line
//! stamped to the microsecond.
//!
//! The same events are summed in `leveldb.stats`, but that table prints whole megabytes and
//! whole seconds: a 13 MB fill shows its compaction time as 0 s and its bytes to ±0.5 MB, which
//! leaves a ratio between two value sizes undefined or off by several percent. The log gives the
//! bytes exactly and the time to the microsecond, under the same definitions as the table:
//! bytes written by flushes plus compactions, and the time the background thread spent in them
//! (a flush done inside a compaction counted once, as LevelDB subtracts it from the compaction).

use std::collections::BTreeMap;
use std::path::Path;

/// What one info log says LevelDB's background work wrote and how long it took.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LevelDbLog {
    /// Memtables written to level 0 that finished OK.
    pub flushes: u64,
    /// Bytes of those level-0 tables.
    pub flush_bytes: u64,
    /// Compactions that finished (`Compacted … => B bytes`).
    pub compactions: u64,
    /// Bytes those compactions wrote.
    pub compaction_bytes: u64,
    /// Microseconds during which a flush or a compaction ran (the union of their intervals).
    pub busy_micros: u64,
}

impl LevelDbLog {
    /// Bytes flushes and compactions wrote together: the numerator of write amplification.
    pub fn table_write_bytes(&self) -> u64 {
        self.flush_bytes + self.compaction_bytes
    }

    /// The info log of the database at `db` (its `LOG`), or `None` when there is none.
    pub fn of_database(db: &Path) -> Option<LevelDbLog> {
        let bytes = std::fs::read(db.join("LOG")).ok()?;
        Some(parse(&String::from_utf8_lossy(&bytes)))
    }
}

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026/11/27-07:50:14.124658` → microseconds since the epoch of that wall-clock reading
/// (the zone does not matter: only differences are used).
fn stamp_micros(s: &str) -> Option<i64> {
    let (date, time) = s.split_once('-')?;
    let mut d = date.split('/').map(|p| p.parse::<i64>().ok());
    let (y, mo, da) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.')?;
    let mut t = hms.split(':').map(|p| p.parse::<i64>().ok());
    let (h, mi, se) = (t.next()??, t.next()??, t.next()??);
    if frac.len() != 6 || !(1..=12).contains(&mo) || !(1..=31).contains(&da) {
        return None;
    }
    let us: i64 = frac.parse().ok()?;
    let secs = days_from_civil(y, mo, da) * 86_400 + h * 3600 + mi * 60 + se;
    Some(secs * 1_000_000 + us)
}

/// The `B` of `… => B bytes` or `#N: B bytes OK`.
fn bytes_before(text: &str, suffix: &str) -> Option<u64> {
    text.strip_suffix(suffix)?.rsplit(' ').next()?.parse().ok()
}

/// Sums the flushes and compactions of one info log's text. Lines it does not know, and an
/// event whose start or end is missing (a log cut short, a compaction that failed), are left
/// out rather than guessed.
pub fn parse(text: &str) -> LevelDbLog {
    let mut out = LevelDbLog::default();
    let mut flush_start: BTreeMap<u64, i64> = BTreeMap::new();
    let mut compaction_start: BTreeMap<String, i64> = BTreeMap::new();
    let mut intervals: Vec<(i64, i64)> = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(stamp), Some(thread), Some(msg)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Some(at) = stamp_micros(stamp) else {
            continue;
        };
        let msg = msg.trim_end();
        if let Some(rest) = msg.strip_prefix("Level-0 table #") {
            let Some((num, what)) = rest.split_once(": ") else {
                continue;
            };
            let Ok(num) = num.parse::<u64>() else {
                continue;
            };
            if what == "started" {
                flush_start.insert(num, at);
            } else if let Some(bytes) = bytes_before(what, " bytes OK") {
                out.flushes += 1;
                out.flush_bytes += bytes;
                if let Some(start) = flush_start.remove(&num) {
                    intervals.push((start, at));
                }
            }
        } else if msg.starts_with("Compacting ") {
            compaction_start.insert(thread.to_string(), at);
        } else if msg.starts_with("Compacted ") {
            if let Some(bytes) = bytes_before(msg, " bytes") {
                out.compactions += 1;
                out.compaction_bytes += bytes;
                if let Some(start) = compaction_start.remove(thread) {
                    intervals.push((start, at));
                }
            }
        } else if msg.starts_with("Compaction error") {
            compaction_start.remove(thread);
        }
    }
    out.busy_micros = union_length(intervals);
    out
}

/// The total length covered by `intervals`, each point counted once.
fn union_length(mut intervals: Vec<(i64, i64)>) -> u64 {
    intervals.retain(|(a, b)| b >= a);
    intervals.sort_unstable();
    let mut total = 0i64;
    let mut current: Option<(i64, i64)> = None;
    for (a, b) in intervals {
        current = match current {
            Some((s, e)) if a <= e => Some((s, e.max(b))),
            Some((s, e)) => {
                total += e - s;
                Some((a, b))
            }
            None => Some((a, b)),
        };
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first compaction of a LevelDB 1.23 db_bench fillrandom (20,000 values of 1 KB, 1 MB
    /// memtable): six flushes, then a compaction during which four more memtables were flushed.
    const SAMPLE: &str = include_str!("testdata/leveldb-LOG");

    #[test]
    fn a_real_log_gives_exact_bytes_and_time() {
        let l = parse(SAMPLE);
        assert_eq!(l.flushes, 10);
        assert_eq!(
            l.flush_bytes,
            595_508
                + 595_705
                + 595_711
                + 595_794
                + 595_705
                + 595_681
                + 595_825
                + 595_665
                + 595_848
                + 595_778
        );
        assert_eq!(l.compactions, 1);
        assert_eq!(l.compaction_bytes, 2_645_686);
        assert_eq!(l.table_write_bytes(), l.flush_bytes + 2_645_686);
        // The six flushes before the compaction, then the compaction, whose four inner flushes
        // lie inside it and add nothing.
        let flushes = (988_538 - 970_577)
            + (1_019_809 - 1_000_598)
            + (1_036_530 - 1_028_633)
            + (1_064_418 - 1_045_138)
            + (1_097_198 - 1_076_812)
            + (1_114_440 - 1_101_508);
        let compaction = 1_313_592 - 1_124_658;
        assert_eq!(l.busy_micros, (flushes + compaction) as u64);
    }

    #[test]
    fn unfinished_or_failed_work_and_foreign_lines_count_nothing() {
        let text = "2026/11/27-07:50:13.000000 1 Level-0 table #5: started\n\
                    2026/11/27-07:50:14.000000 2 Compacting 4@0 + 1@1 files\n\
                    2026/11/27-07:50:15.000000 2 Compaction error: IO error: disk full\n\
                    garbage line\n\
                    2026/13/27-07:50:15.000000 2 Compacted 1@0 + 1@1 files => 5 bytes\n\
                    2026/11/27-07:50:16.000000 2 Level-0 table #x: 12 bytes OK\n";
        assert_eq!(parse(text), LevelDbLog::default());
    }

    #[test]
    fn a_log_across_midnight_and_month_ends_keeps_its_durations() {
        let text = "2026/12/31-23:59:59.500000 1 Compacting 1@0 + 0@1 files\n\
                    2027/01/01-00:00:00.250000 1 Compacted 1@0 + 0@1 files => 100 bytes\n";
        let l = parse(text);
        assert_eq!((l.compactions, l.compaction_bytes), (1, 100));
        assert_eq!(l.busy_micros, 750_000);
    }

    #[test]
    fn overlapping_intervals_count_once() {
        assert_eq!(union_length(vec![(0, 10), (5, 20), (30, 31), (2, 3)]), 21);
        assert_eq!(union_length(Vec::new()), 0);
    }
}
