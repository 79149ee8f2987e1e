//! `rocksdb.stats`: the compaction-stats table and the DB stats in RocksDB 7.8's layout.
//!
//! Tools that drive db_bench (RocksDB's `tools/benchmark.sh`, and the many scripts modelled on
//! it) read this text by field position: the ` Sum` row's size (fields 3–4), compaction
//! seconds (15), CPU seconds (16), blob read/write GB (21–22); `Cumulative compaction:`,
//! `Flush(GB):`, `Cumulative writes: … ingest:`, `Cumulative stall:` and `Stalls(count):`. So
//! every token stands where RocksDB 7.8 puts it. (RocksDB 8.x added a `WPreComp(GB)` column,
//! which shifts the later fields; benchmark.sh still reads 7.8's positions.)

use super::{DbInner, LevelStats};
use crate::stats::Ticker;
use crate::version::Version;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

const KB: f64 = 1024.0;
const MB: f64 = KB * 1024.0;
const GB: f64 = MB * 1024.0;

/// The cumulative figures of one dump, so that the next prints what happened in between.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Cumulative {
    uptime_secs: f64,
    sum: LevelStats,
    flush_bytes: u64,
    writes: u64,
    keys: u64,
    groups: u64,
    ingest: u64,
    wal_writes: u64,
    wal_syncs: u64,
    wal_bytes: u64,
    stall_micros: u64,
    stalls: u64,
}

/// RocksDB's `NumberToHumanString`: up to four digits as they are, then K, M, G.
fn human_count(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{}K", n / 1_000),
        10_000_000..=9_999_999_999 => format!("{}M", n / 1_000_000),
        _ => format!("{}G", n / 1_000_000_000),
    }
}

/// A size as two tokens, number and unit (KB below a megabyte, as RocksDB prints it).
fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= GB {
        format!("{:.2} GB", b / GB)
    } else if b >= MB {
        format!("{:.2} MB", b / MB)
    } else {
        format!("{:.2} KB", b / KB)
    }
}

fn per_sec(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / MB / secs
    } else {
        0.0
    }
}

fn add(sum: &mut LevelStats, ls: &LevelStats) {
    sum.count += ls.count;
    sum.read_level += ls.read_level;
    sum.read_next += ls.read_next;
    sum.written += ls.written;
    sum.moved += ls.moved;
    sum.micros += ls.micros;
    sum.cpu_micros += ls.cpu_micros;
    sum.keys_in += ls.keys_in;
    sum.keys_dropped += ls.keys_dropped;
    sum.blob_written += ls.blob_written;
    sum.blob_read += ls.blob_read;
}

fn minus(a: &LevelStats, b: &LevelStats) -> LevelStats {
    LevelStats {
        count: a.count.saturating_sub(b.count),
        read_level: a.read_level.saturating_sub(b.read_level),
        read_next: a.read_next.saturating_sub(b.read_next),
        written: a.written.saturating_sub(b.written),
        moved: a.moved.saturating_sub(b.moved),
        micros: a.micros.saturating_sub(b.micros),
        cpu_micros: a.cpu_micros.saturating_sub(b.cpu_micros),
        keys_in: a.keys_in.saturating_sub(b.keys_in),
        keys_dropped: a.keys_dropped.saturating_sub(b.keys_dropped),
        blob_written: a.blob_written.saturating_sub(b.blob_written),
        blob_read: a.blob_read.saturating_sub(b.blob_read),
    }
}

/// One row of the table. `w_amp` is given: per level it is written / read from the level
/// above (1.0 for level 0's flushes); for the Sum row, written / flushed.
#[allow(clippy::too_many_arguments)]
fn row(
    s: &mut String,
    name: &str,
    files: usize,
    busy: usize,
    bytes: u64,
    score: f64,
    ls: &LevelStats,
    w_amp: f64,
) {
    let secs = ls.micros as f64 / 1e6;
    let read = ls.read_level + ls.read_next;
    // As RocksDB: Write(GB) is table bytes, blob bytes have their own column.
    let write = ls.written.saturating_sub(ls.blob_written);
    let _ = writeln!(
        s,
        "{name:>4} {:>10} {:>11} {score:>5.1} {:>8.1} {:>7.1} {:>8.1} {:>9.1} {:>8.1} {:>9.1} {w_amp:>5.1} {:>8.1} {:>8.1} {:>9.2} {:>17.2} {:>9} {:>8.3} {:>7} {:>7} {:>9.1} {:>9.1}",
        format!("{files}/{busy}"),
        human_bytes(bytes),
        read as f64 / GB,
        ls.read_level as f64 / GB,
        ls.read_next as f64 / GB,
        write as f64 / GB,
        write.saturating_sub(ls.read_next) as f64 / GB,
        ls.moved as f64 / GB,
        per_sec(read, secs),
        per_sec(ls.written, secs),
        secs,
        ls.cpu_micros as f64 / 1e6,
        ls.count,
        if ls.count > 0 { secs / ls.count as f64 } else { 0.0 },
        human_count(ls.keys_in),
        human_count(ls.keys_dropped),
        ls.blob_read as f64 / GB,
        ls.blob_written as f64 / GB,
    );
}

fn hms(micros: u64) -> String {
    let secs = micros as f64 / 1e6;
    let h = (secs / 3600.0).floor();
    let m = ((secs - h * 3600.0) / 60.0).floor();
    format!(
        "{:02}:{:02}:{:.3} H:M:S",
        h as u64,
        m as u64,
        secs - h * 3600.0 - m * 60.0
    )
}

/// The text of `rocksdb.stats`; remembers this dump's figures for the next one's intervals.
pub(crate) fn dump(inner: &DbInner) -> String {
    let st = inner.state.lock();
    let v = st.versions.current();
    let scores = inner.policy.level_scores(&v, &inner.opts);
    let uptime = inner.opened.elapsed().as_secs_f64();
    let ticker = |t: Ticker| inner.stats.ticker(t);
    let mut last = inner.last_stats_dump.lock();

    let mut s = String::from("\n** Compaction Stats [default] **\n");
    let sum = level_table(&mut s, &v, &st.level_stats, &scores);
    let flush_bytes = st.level_stats[0].written;
    let int = minus(&sum, &last.sum);
    let int_flush = flush_bytes.saturating_sub(last.flush_bytes);
    row(&mut s, "Int", 0, 0, 0, 0.0, &int, amp(&int, int_flush));

    blob_summary(&mut s, &v);
    let interval = uptime - last.uptime_secs;
    let _ = writeln!(s, "Uptime(secs): {uptime:.1} total, {interval:.1} interval");
    let _ = writeln!(
        s,
        "Flush(GB): cumulative {:.3}, interval {:.3}",
        flush_bytes as f64 / GB,
        int_flush as f64 / GB
    );
    s.push_str("AddFile(GB): cumulative 0.000, interval 0.000\nAddFile(Total Files): cumulative 0, interval 0\nAddFile(L0 Files): cumulative 0, interval 0\nAddFile(Keys): cumulative 0, interval 0\n");
    for (what, ls, secs) in [("Cumulative", &sum, uptime), ("Interval", &int, interval)] {
        let read = ls.read_level + ls.read_next;
        let _ = writeln!(
            s,
            "{what} compaction: {:.2} GB write, {:.2} MB/s write, {:.2} GB read, {:.2} MB/s read, {:.1} seconds",
            ls.written as f64 / GB,
            per_sec(ls.written, secs),
            read as f64 / GB,
            per_sec(read, secs),
            ls.micros as f64 / 1e6
        );
    }
    let (l0_slow, l0_stop, mem_stop, pend_slow, pend_stop) = (
        ticker(Ticker::StallL0Slowdowns),
        ticker(Ticker::StallL0Stops),
        ticker(Ticker::StallMemtableStops),
        ticker(Ticker::StallPendingSlowdowns),
        ticker(Ticker::StallPendingStops),
    );
    let stalls = l0_slow + l0_stop + mem_stop + pend_slow + pend_stop;
    let _ = writeln!(
        s,
        "Stalls(count): {l0_slow} level0_slowdown, 0 level0_slowdown_with_compaction, {l0_stop} level0_numfiles, 0 level0_numfiles_with_compaction, {pend_stop} stop for pending_compaction_bytes, {pend_slow} slowdown for pending_compaction_bytes, {mem_stop} memtable_compaction, 0 memtable_slowdown, interval {} total count",
        stalls.saturating_sub(last.stalls)
    );

    let now = Cumulative {
        uptime_secs: uptime,
        sum,
        flush_bytes,
        writes: ticker(Ticker::WriteDoneBySelf) + ticker(Ticker::WriteDoneByOther),
        keys: ticker(Ticker::NumberKeysWritten),
        groups: ticker(Ticker::WriteDoneBySelf),
        ingest: ticker(Ticker::BytesWritten),
        wal_writes: ticker(Ticker::WriteWithWal),
        wal_syncs: ticker(Ticker::WalFileSynced),
        wal_bytes: ticker(Ticker::WalFileBytes),
        stall_micros: ticker(Ticker::StallMicros),
        stalls,
    };
    db_stats(&mut s, &now, &last, uptime, interval);
    *last = now;
    s
}

/// Bytes compacted out of the levels per byte flushed (0 before the first flush).
fn amp(sum: &LevelStats, flushed: u64) -> f64 {
    if flushed > 0 {
        sum.written as f64 / flushed as f64
    } else {
        0.0
    }
}

/// The compaction table's header, a row per level in use and the `Sum` row; returns the sum.
fn level_table(
    s: &mut String,
    v: &Version,
    level_stats: &[LevelStats],
    scores: &[f64],
) -> LevelStats {
    s.push_str("Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)\n");
    let _ = writeln!(s, "{}", "-".repeat(192));
    let mut sum = LevelStats::default();
    let (mut sum_files, mut sum_busy, mut sum_bytes) = (0, 0, 0u64);
    for (l, files) in v.levels.iter().enumerate() {
        let ls = level_stats.get(l).copied().unwrap_or_default();
        let bytes: u64 = files.iter().map(|f| f.size).sum();
        let busy = files
            .iter()
            .filter(|f| f.being_compacted.load(Ordering::Relaxed))
            .count();
        if files.is_empty() && ls.count == 0 {
            continue;
        }
        let w_amp = if l == 0 {
            if ls.written > 0 {
                1.0
            } else {
                0.0
            }
        } else if ls.read_level > 0 {
            ls.written as f64 / ls.read_level as f64
        } else {
            0.0
        };
        row(
            s,
            &format!("L{l}"),
            files.len(),
            busy,
            bytes,
            scores.get(l).copied().unwrap_or(0.0),
            &ls,
            w_amp,
        );
        sum_files += files.len();
        sum_busy += busy;
        sum_bytes += bytes;
        add(&mut sum, &ls);
    }
    let flush_bytes = level_stats.first().map_or(0, |ls| ls.written);
    row(
        s,
        "Sum",
        sum_files,
        sum_busy,
        sum_bytes,
        0.0,
        &sum,
        amp(&sum, flush_bytes),
    );
    sum
}

/// The blob files' line: count, size, garbage and the space amplification they make.
fn blob_summary(s: &mut String, v: &Version) {
    let blob_total: u64 = v.blobs.values().map(|b| b.file_size()).sum();
    let blob_garbage: u64 = v.blobs.values().map(|b| b.garbage_bytes).sum();
    let space_amp = if blob_total > blob_garbage {
        blob_total as f64 / (blob_total - blob_garbage) as f64
    } else {
        0.0
    };
    let _ = writeln!(
        s,
        "\nBlob file count: {}, total size: {:.1} GB, garbage size: {:.1} GB, space amp: {space_amp:.1}\n",
        v.blobs.len(),
        blob_total as f64 / GB,
        blob_garbage as f64 / GB,
    );
}

/// The `** DB Stats **` section: writes, WAL and stalls, since open and since `last`.
fn db_stats(s: &mut String, now: &Cumulative, last: &Cumulative, uptime: f64, interval: f64) {
    s.push_str("\n** DB Stats **\n");
    let _ = writeln!(s, "Uptime(secs): {uptime:.1} total, {interval:.1} interval");
    for (what, a, b, secs) in [
        ("Cumulative", now, &Cumulative::default(), uptime),
        ("Interval", now, last, interval),
    ] {
        let writes = a.writes.saturating_sub(b.writes);
        let groups = a.groups.saturating_sub(b.groups);
        let ingest = a.ingest.saturating_sub(b.ingest);
        let wal_writes = a.wal_writes.saturating_sub(b.wal_writes);
        let syncs = a.wal_syncs.saturating_sub(b.wal_syncs);
        let wal_bytes = a.wal_bytes.saturating_sub(b.wal_bytes);
        let stall = a.stall_micros.saturating_sub(b.stall_micros);
        let _ = writeln!(
            s,
            "{what} writes: {} writes, {} keys, {} commit groups, {:.1} writes per commit group, ingest: {:.2} GB, {:.2} MB/s",
            human_count(writes),
            human_count(a.keys.saturating_sub(b.keys)),
            human_count(groups),
            if groups > 0 { writes as f64 / groups as f64 } else { 0.0 },
            ingest as f64 / GB,
            per_sec(ingest, secs)
        );
        let _ = writeln!(
            s,
            "{what} WAL: {} writes, {} syncs, {:.2} writes per sync, written: {:.2} GB, {:.2} MB/s",
            human_count(wal_writes),
            human_count(syncs),
            wal_writes as f64 / syncs.max(1) as f64,
            wal_bytes as f64 / GB,
            per_sec(wal_bytes, secs)
        );
        let _ = writeln!(
            s,
            "{what} stall: {}, {:.1} percent",
            hms(stall),
            if secs > 0.0 {
                stall as f64 / 1e6 / secs * 100.0
            } else {
                0.0
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_sizes_read_as_rocksdb_prints_them() {
        assert_eq!(human_count(9_999), "9999");
        assert_eq!(human_count(458_123), "458K");
        assert_eq!(human_count(12_345_678), "12M");
        assert_eq!(human_bytes(0), "0.00 KB");
        assert_eq!(human_bytes(4 << 20), "4.00 MB");
        assert_eq!(human_bytes(3 << 30), "3.00 GB");
        assert_eq!(hms(3_723_500_000), "01:02:3.500 H:M:S");
    }
}
