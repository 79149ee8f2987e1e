//! RocksDB-named properties.

use super::DbInner;
use std::fmt::Write as _;
use std::sync::atomic::Ordering;

const MB: f64 = (1u64 << 20) as f64;

pub(crate) fn property_int(inner: &DbInner, name: &str) -> Option<u64> {
    let v = inner.super_version.load_full();
    let version = &v.version;
    if let Some(level) = name.strip_prefix("rocksdb.num-files-at-level") {
        let l: usize = level.parse().ok()?;
        return version.levels.get(l).map(|f| f.len() as u64);
    }
    if let Some(level) = name.strip_prefix("lsmlab.num-entries-at-level") {
        let files = version.levels.get(level.parse::<usize>().ok()?)?;
        return Some(files.iter().map(|f| f.num_entries).sum());
    }
    if let Some(level) = name.strip_prefix("lsmlab.filter-bytes-at-level") {
        // Memory of the level's filters; a table not open yet is opened (every table stays
        // open once opened), and one that cannot be leaves the figure unknown.
        let files = version.levels.get(level.parse::<usize>().ok()?)?;
        let mut bytes = 0u64;
        for f in files {
            bytes += f.reader(&inner.tables).ok()?.filter_memory() as u64;
        }
        return Some(bytes);
    }
    Some(match name {
        "rocksdb.total-sst-files-size" | "rocksdb.live-sst-files-size" => {
            version.files().map(|(_, f)| f.size).sum()
        }
        "rocksdb.estimate-num-keys" => {
            let disk: u64 = version
                .files()
                .map(|(_, f)| f.num_entries.saturating_sub(2 * f.num_deletions))
                .sum();
            let mem: u64 = std::iter::once(&v.mem)
                .chain(v.imms.iter())
                .map(|m| m.len() as u64)
                .sum();
            disk + mem
        }
        // The versions upper tables hide below them, estimated when the tables were written
        // (`compaction/obsolete.rs`).
        "lsmlab.estimate-obsolete-bytes" => crate::compaction::obsolete::hidden_bytes(version)
            .iter()
            .sum(),
        "rocksdb.num-blob-files" => version.blobs.len() as u64,
        // As RocksDB: total counts the blob files of every version still held (by readers too),
        // live those of the current version; garbage is what no table references any more.
        "rocksdb.total-blob-file-size" => inner.reaper.blob_file_bytes(),
        "rocksdb.live-blob-file-size" => version.blobs.values().map(|b| b.file_size()).sum(),
        "rocksdb.live-blob-file-garbage-size" => {
            version.blobs.values().map(|b| b.garbage_bytes).sum()
        }
        "rocksdb.estimate-table-readers-mem" => inner.tables.sum(|t| t.memory_usage() as u64),
        "rocksdb.block-cache-usage" => inner.block_cache().map_or(0, |c| c.usage() as u64),
        "rocksdb.block-cache-capacity" => inner.block_cache().map_or(0, |c| c.capacity() as u64),
        "rocksdb.cur-size-all-mem-tables" => std::iter::once(&v.mem)
            .chain(v.imms.iter())
            .map(|m| m.approximate_size() as u64)
            .sum(),
        "rocksdb.num-immutable-mem-table" => v.imms.len() as u64,
        "rocksdb.background-errors" => inner.state.lock().bg_error.is_some() as u64,
        "lsmlab.filter.bytes" => inner.tables.sum(|t| t.filter_memory() as u64),
        "lsmlab.filter.keys" => inner.tables.sum(|t| {
            if t.filter_memory() > 0 {
                t.properties().num_entries
            } else {
                0
            }
        }),
        "lsmlab.index.bytes" => inner
            .tables
            .sum(|t| (t.memory_usage() - t.filter_memory()) as u64),
        "lsmlab.last-sequence" => inner.last_seq.load(Ordering::Acquire),
        "lsmlab.inline-work.longest-jobs" => inner.longest_inline.jobs(),
        "lsmlab.inline-work.longest-float-ups" => inner.longest_inline.float_ups(),
        "lsmlab.inline-work.longest-micros" => inner.longest_inline.micros(),
        "lsmlab.recovery.records" => inner.recovery.records,
        "lsmlab.recovery.dropped-records" => inner.recovery.dropped_records,
        "lsmlab.recovery.damaged-regions" => inner.recovery.damaged_regions,
        "lsmlab.level0-compaction-trigger" => {
            inner.policy.level0_triggers(&inner.opts).compaction as u64
        }
        "lsmlab.read-ratio-permille" => {
            (inner.policy.status().read_ratio.unwrap_or(0.0) * 1000.0).round() as u64
        }
        _ => {
            let level: usize = name
                .strip_prefix("lsmlab.max-bytes-for-level")?
                .parse()
                .ok()?;
            if level == 0 || level >= version.levels.len() {
                return None;
            }
            inner.policy.level_targets(version, &inner.opts).max_bytes[level]
        }
    })
}

pub(crate) fn property(inner: &DbInner, name: &str) -> Option<String> {
    match name {
        "rocksdb.stats" | "rocksdb.cfstats" | "lsmlab.stats" => {
            Some(super::stats_dump::dump(inner) + &layout_stats(inner))
        }
        "lsmlab.layout" => Some(layout_stats(inner)),
        "rocksdb.levelstats" => Some(level_stats(inner)),
        "rocksdb.sstables" => Some(sstables(inner)),
        "lsmlab.blob-files" => Some(blob_files(inner)),
        _ => property_int(inner, name).map(|v| v.to_string()),
    }
}

fn level_stats(inner: &DbInner) -> String {
    let v = inner.super_version.load().version.clone();
    let mut s = String::from("Level Files Size(MB)\n--------------------\n");
    for (l, files) in v.levels.iter().enumerate() {
        let bytes: u64 = files.iter().map(|f| f.size).sum();
        let _ = writeln!(s, "{l:>3} {:>8} {:>8.0}", files.len(), bytes as f64 / MB);
    }
    s
}

fn sstables(inner: &DbInner) -> String {
    let v = inner.super_version.load().version.clone();
    let mut s = String::new();
    for (l, files) in v.levels.iter().enumerate() {
        let _ = writeln!(s, "--- level {l} ---");
        for f in files {
            let _ = writeln!(
                s,
                " {}:{}[{} .. {}]['{}' .. '{}']",
                f.number,
                f.size,
                f.smallest_seq,
                f.largest_seq,
                escape(f.smallest_user()),
                escape(f.largest_user())
            );
        }
    }
    s
}

/// One line per live blob file: its garbage, the figure garbage collection works from.
fn blob_files(inner: &DbInner) -> String {
    let v = inner.super_version.load().version.clone();
    let mut s = String::from("file records bytes garbage_records garbage_bytes\n");
    for b in v.blobs.values() {
        let f = &b.meta.file;
        let _ = writeln!(
            s,
            "{} {} {} {} {}",
            f.number, f.count, f.bytes, b.garbage_count, b.garbage_bytes
        );
    }
    s
}

fn escape(b: &[u8]) -> String {
    b.iter()
        .map(|&c| {
            if c.is_ascii_graphic() {
                (c as char).to_string()
            } else {
                format!("\\x{c:02X}")
            }
        })
        .collect()
}

/// The layout policy's state: read ratio, current level limits, and its own summary (FSLSM:
/// float-ups).
fn layout_stats(inner: &DbInner) -> String {
    let p = &inner.policy;
    let opts = &inner.opts;
    let status = p.status();
    let mut s = String::from("\n** Layout [default] **\n");
    let preset = opts.layout_preset().unwrap_or("custom");
    let _ = write!(s, "Layout: {} (preset {preset})", p.name());
    match (status.read_ratio, status.read_ratio_window) {
        (Some(r), Some(n)) => {
            let _ = writeln!(s, "; read ratio {r:.2} over the last {n} operations");
        }
        _ => s.push('\n'),
    }
    let t = p.level0_triggers(opts);
    let _ = write!(
        s,
        "Level limits: L0 {} files (slowdown {}, stop {})",
        t.compaction, t.slowdown, t.stop
    );
    let version = inner.super_version.load().version.clone();
    let targets = p.level_targets(&version, opts);
    for level in 1..opts.num_levels.saturating_sub(1) {
        if opts.max_files_for_level_base > 0 {
            let _ = write!(
                s,
                "; L{level} {} tables",
                p.max_files_for_level(opts, level)
            );
            continue;
        }
        match targets.max_bytes[level] {
            // Above the base level of dynamic sizing: no data belongs there.
            0 => {
                let _ = write!(s, "; L{level} -");
            }
            bytes => {
                let _ = write!(s, "; L{level} {:.1} MB", bytes as f64 / MB);
            }
        }
    }
    s.push('\n');
    if let Some(lines) = inner.policy.summary(&inner.stats) {
        let _ = writeln!(s, "{lines}");
    }
    s
}
