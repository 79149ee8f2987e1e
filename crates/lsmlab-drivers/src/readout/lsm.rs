//! The lsmlab block: what db_bench does not tell, computed from the engine's tickers, I/O
//! counters and properties between two snapshots (the start and the end of one benchmark).
//!
//! The formulas are `formulas.rs`'s (docs/metrics.md), shared with the library engines' block.
//!
//! Engine counters that stay at zero (the user bytes of an engine that does not count them) fall
//! back to what the benchmark itself counted; figures with a zero denominator print `n/a`.

use super::filter_levels::{self, FilterLevelFigures};
use super::formulas;
use super::process::{cpu_times, dir_size, peak_rss_bytes, CpuTimes};
use super::shared::{EngineFigures, ProcessFigures};
use super::sim::{SimCounts, SimFigures};
use lsmlab::env::{IoCategory, IoCounts};
use lsmlab::{Db, HistogramKind, StallCause, Ticker};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// Engine and process counters at one instant.
#[derive(Clone)]
pub struct EngineSnapshot {
    tickers: Vec<u64>,
    compaction_cpu_micros: u64,
    io: Vec<IoCounts>,
    filter_levels: Vec<lsmlab::stats::LevelFilterCounts>,
    cpu: CpuTimes,
    at: Instant,
}

impl EngineSnapshot {
    /// The counters of `db` and of this process now.
    pub fn take(db: &Db) -> EngineSnapshot {
        let stats = db.statistics();
        let io = db.io_stats();
        EngineSnapshot {
            tickers: Ticker::ALL.iter().map(|&t| stats.ticker(t)).collect(),
            compaction_cpu_micros: stats.histogram(HistogramKind::CompactionCpuTime).sum,
            io: IoCategory::ALL.iter().map(|&c| io.get(c)).collect(),
            filter_levels: filter_levels::probes(db),
            cpu: cpu_times(),
            at: Instant::now(),
        }
    }

    fn ticker(&self, t: Ticker) -> u64 {
        self.tickers[t as usize]
    }

    fn io(&self, c: IoCategory) -> IoCounts {
        self.io[c as usize]
    }
}

/// What the benchmark itself counted, used when the engine's tickers are silent.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientCounts {
    /// Key + value bytes the benchmark wrote.
    pub bytes_written: u64,
    /// Key + value bytes the benchmark got back from reads and scans.
    pub bytes_returned: u64,
}

/// The figures of the lsmlab block.
#[derive(Debug, Clone, Serialize, Default)]
pub struct LsmFigures {
    /// User key + value bytes written.
    pub user_bytes_written: u64,
    /// Bytes written by flushes.
    pub flush_bytes: u64,
    /// Bytes written by compactions.
    pub compaction_write_bytes: u64,
    /// Bytes read by compactions.
    pub compaction_read_bytes: u64,
    /// Bytes written to blob files, by GC and by float-up.
    pub blob_gc_floatup_bytes: u64,
    /// Bytes written to the WAL.
    pub wal_bytes: u64,
    /// (flush + compaction + blob + GC + float-up) / user bytes.
    pub write_amp: Option<f64>,
    /// The same with WAL bytes added.
    pub write_amp_with_wal: Option<f64>,
    /// Bytes read from disk for user reads.
    pub user_read_disk_bytes: u64,
    /// Key + value bytes returned to the user.
    pub bytes_returned: u64,
    /// user_read_disk_bytes / bytes_returned.
    pub read_amp: Option<f64>,
    /// Gets that found their key in a table.
    pub gets_found_on_disk: u64,
    /// Tables checked by those gets.
    pub files_checked_found: u64,
    /// files_checked_found / gets_found_on_disk.
    pub files_checked_per_get: Option<f64>,
    /// Tables probed by all gets.
    pub files_probed: u64,
    /// Filter probes that said "absent".
    pub filter_useful: u64,
    /// Filter probes that said "maybe".
    pub filter_positive: u64,
    /// "Maybe" answers for keys that were present.
    pub filter_true_positive: u64,
    /// False-positive rate of the filters.
    pub filter_fpr: Option<f64>,
    /// Each level's filters: memory and bits per key at the end, probes and false-positive
    /// rate during the benchmark.
    pub filter_levels: Vec<FilterLevelFigures>,
    /// Compactions run.
    pub compactions: u64,
    /// CPU microseconds of compactions.
    pub compaction_cpu_micros: u64,
    /// Bytes of every file in the database directory.
    pub db_size_bytes: Option<u64>,
    /// `rocksdb.total-sst-files-size`.
    pub sst_files_bytes: Option<u64>,
    /// Peak resident memory of the process.
    pub peak_rss_bytes: Option<u64>,
    /// `lsmlab.filter.bytes`.
    pub filter_bytes: Option<u64>,
    /// `lsmlab.filter.keys`.
    pub filter_keys: Option<u64>,
    /// `lsmlab.index.bytes`.
    pub index_bytes: Option<u64>,
    /// `rocksdb.block-cache-usage`.
    pub block_cache_bytes: Option<u64>,
    /// CPU and wall time of the process during the benchmark (`cpu_user_s`, `cpu_sys_s`,
    /// `wall_s` in the JSON).
    #[serde(flatten)]
    pub process: ProcessFigures,
    /// Device time of the FSLSM model: 8 KiB pages read × T_R + pages written × T_W
    /// (`fslsm_device_read_micros`, `fslsm_device_write_micros`; 50 and 200 µs by default).
    pub device_time_s: f64,
    /// T_R used for `device_time_s`, microseconds.
    pub device_read_micros: f64,
    /// T_W used for `device_time_s`, microseconds.
    pub device_write_micros: f64,
    /// The layout policy (`leveled`, `fslsm`).
    pub layout: String,
    /// The preset the options amount to (`leveldb`, `wisckey`, `fslsm`), or `custom`.
    pub layout_preset: String,
    /// FSLSM's read ratio at the end (reads / operations over its window); none for leveled.
    pub read_ratio: Option<f64>,
    /// Level 0's compaction, slowdown and stop triggers at the end (files).
    pub level0_triggers: [u64; 3],
    /// Tables in level 0 at the end.
    pub level0_files: u64,
    /// Of those, the tables float-ups wrote (the others were flushed); none for a policy
    /// without float-ups.
    pub level0_floated_files: Option<u64>,
    /// Target bytes of levels 1.. at the end (stretched by FSLSM).
    pub level_max_bytes: Vec<u64>,
    /// Float-ups run.
    pub float_ups: u64,
    /// Bytes float-ups read (the floated tables and the tables of the levels they crossed).
    pub float_up_read_bytes: u64,
    /// Bytes float-ups wrote.
    pub float_up_write_bytes: u64,
    /// Versions float-ups dropped (shadowed for every reader).
    pub float_up_keys_dropped: u64,
    /// Float-ups the policy asked for since open.
    pub float_ups_requested: u64,
    /// Float-ups skipped since open (too many crossed tables).
    pub float_ups_skipped: u64,
    /// Float-ups undone: a compaction took a table they wrote out of level 0 within
    /// `fslsm_read_ratio_window` operations (`lsmlab.floatup.undone`).
    pub float_ups_undone: u64,
    /// The longest stretch of background work one user call ran inline since open
    /// (`lsmlab.inline-work.longest-*`); none unless `deterministic_background` is on, when
    /// background work runs on its own threads and no call runs any.
    pub inline_work: Option<InlineWork>,
    /// The FSLSM study's own metrics (docs/metrics.md), beside lsmlab's.
    pub sim: SimFigures,
    /// Bytes and pages moved per I/O category (`wal`, `flush`, `compaction`, `user`, …).
    pub io: BTreeMap<String, IoFigures>,
    /// Ticker deltas by RocksDB name.
    pub tickers: BTreeMap<String, u64>,
}

/// The longest stretch of background work one user call ran inline under
/// `deterministic_background` (since open).
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq, Eq)]
pub struct InlineWork {
    /// Background jobs (flushes, compactions, float-ups) in that stretch.
    pub jobs: u64,
    /// Of those, float-ups.
    pub float_ups: u64,
    /// Its length, microseconds.
    pub micros: u64,
}

/// One I/O category's traffic during a benchmark.
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq, Eq)]
pub struct IoFigures {
    /// Bytes read.
    pub bytes_read: u64,
    /// Bytes written.
    pub bytes_written: u64,
    /// 8 KiB pages read.
    pub pages_read: u64,
    /// 8 KiB pages written.
    pub pages_written: u64,
}

impl LsmFigures {
    /// The writers' waits by cause: how often and how long, from the stall tickers.
    /// The longest background work one call ran inline, with `deterministic_background`.
    fn inline_work_line(&self) -> String {
        let what = match self.inline_work {
            Some(w) => format!(
                "longest {} jobs ({} float-ups) in {:.3} s run inline by one call since open",
                w.jobs,
                w.float_ups,
                w.micros as f64 / 1e6
            ),
            None => "n/a (background threads; --deterministic_background runs the work inline)"
                .to_string(),
        };
        format!("lsmlab inline_work          : {what}")
    }

    fn stalls_line(&self) -> String {
        let t = |ticker: Ticker| self.tickers.get(ticker.name()).copied().unwrap_or(0);
        let secs = |micros: u64| micros as f64 / 1e6;
        let total = t(Ticker::StallMicros);
        let causes: Vec<String> = StallCause::ALL
            .iter()
            .map(|c| {
                let (count, micros) = (t(c.count_ticker()), t(c.micros_ticker()));
                format!("{} {count} x {:.3} s", c.label(), secs(micros))
            })
            .collect();
        format!(
            "lsmlab stalls               : {:.3} s, {:.1}% of wall ({})",
            secs(total),
            100.0 * secs(total) / self.process.wall_s.max(1e-9),
            causes.join(", ")
        )
    }

    /// The figures between `before` and `after`.
    pub fn between(
        before: &EngineSnapshot,
        after: &EngineSnapshot,
        db: &Db,
        db_path: &Path,
        client: ClientCounts,
    ) -> LsmFigures {
        let g = Growth { before, after };
        let d = |t: Ticker| g.ticker(t);
        let dio = |c: IoCategory| g.io(c);
        let or = |engine: u64, fallback: u64| if engine > 0 { engine } else { fallback };
        let user_bytes_written = or(d(Ticker::BytesWritten), client.bytes_written);
        let flush_bytes = or(
            d(Ticker::FlushWriteBytes),
            dio(IoCategory::Flush).bytes_written,
        );
        let compaction_write_bytes = or(
            d(Ticker::CompactWriteBytes),
            dio(IoCategory::Compaction).bytes_written,
        );
        let blob_gc_floatup_bytes = [IoCategory::Blob, IoCategory::Gc, IoCategory::FloatUp]
            .iter()
            .map(|&c| dio(c).bytes_written)
            .sum();
        let wal_bytes = or(d(Ticker::WalFileBytes), dio(IoCategory::Wal).bytes_written);
        // As in RocksDB, the flush and compaction tickers include the blob-file bytes they wrote
        // (separation and GC relocation); only float-up bytes come on top, so each byte written
        // counts once.
        let device = flush_bytes + compaction_write_bytes + dio(IoCategory::FloatUp).bytes_written;
        let user_read_disk_bytes = or(
            d(Ticker::GetReadBytes),
            dio(IoCategory::UserRead).bytes_read,
        );
        let bytes_returned = or(d(Ticker::BytesRead), client.bytes_returned);
        let useful = d(Ticker::BloomFilterUseful);
        let positive = d(Ticker::BloomFilterFullPositive);
        let true_positive = d(Ticker::BloomFilterFullTruePositive);
        let gets_found_on_disk = d(Ticker::GetsFoundOnDisk);
        let files_checked_found = d(Ticker::FilesCheckedFound);
        let prop = |name: &str| db.property_int(name);
        let opts = db.options();
        let (t_r, t_w) = (
            opts.fslsm.device_read_micros,
            opts.fslsm.device_write_micros,
        );
        let layout = db.layout();
        let l0 = layout.level0.unwrap_or(lsmlab::compaction::Level0Triggers {
            compaction: 0,
            slowdown: 0,
            stop: 0,
        });
        let sim = sim_figures(
            &g,
            db,
            [user_bytes_written, bytes_returned],
            flush_bytes,
            compaction_write_bytes,
        );
        let inline_work = opts.deterministic_background.then(|| InlineWork {
            jobs: prop("lsmlab.inline-work.longest-jobs").unwrap_or(0),
            float_ups: prop("lsmlab.inline-work.longest-float-ups").unwrap_or(0),
            micros: prop("lsmlab.inline-work.longest-micros").unwrap_or(0),
        });
        LsmFigures {
            sim,
            inline_work,
            level0_files: layout.level0_files as u64,
            level0_floated_files: layout.level0_from_jobs.map(|n| n as u64),
            device_read_micros: t_r,
            device_write_micros: t_w,
            layout: layout.policy.to_string(),
            layout_preset: layout.preset.unwrap_or("custom").to_string(),
            read_ratio: layout.status.read_ratio,
            level0_triggers: [l0.compaction as u64, l0.slowdown as u64, l0.stop as u64],
            level_max_bytes: layout.max_bytes.clone(),
            float_ups: d(Ticker::FloatUps),
            float_up_read_bytes: d(Ticker::FloatUpReadBytes),
            float_up_write_bytes: d(Ticker::FloatUpWriteBytes),
            float_up_keys_dropped: d(Ticker::FloatUpKeysDropped),
            float_ups_requested: layout.status.float_ups_requested,
            float_ups_skipped: layout.status.float_ups_skipped,
            float_ups_undone: d(Ticker::FloatUpsUndone),
            user_bytes_written,
            flush_bytes,
            compaction_write_bytes,
            compaction_read_bytes: d(Ticker::CompactReadBytes),
            blob_gc_floatup_bytes,
            wal_bytes,
            write_amp: formulas::write_amp(device, user_bytes_written),
            write_amp_with_wal: formulas::write_amp_with_wal(device, wal_bytes, user_bytes_written),
            user_read_disk_bytes,
            bytes_returned,
            read_amp: formulas::read_amp(user_read_disk_bytes, bytes_returned),
            gets_found_on_disk,
            files_checked_found,
            files_checked_per_get: formulas::files_checked_per_get(
                files_checked_found,
                gets_found_on_disk,
            ),
            files_probed: d(Ticker::FilesProbed),
            filter_useful: useful,
            filter_positive: positive,
            filter_true_positive: true_positive,
            filter_fpr: formulas::filter_fpr(useful, positive, true_positive),
            filter_levels: filter_levels::figures(db, &before.filter_levels, &after.filter_levels),
            compactions: d(Ticker::Compactions),
            compaction_cpu_micros: after
                .compaction_cpu_micros
                .saturating_sub(before.compaction_cpu_micros),
            db_size_bytes: dir_size(db_path),
            sst_files_bytes: prop("rocksdb.total-sst-files-size"),
            peak_rss_bytes: peak_rss_bytes(),
            filter_bytes: prop("lsmlab.filter.bytes"),
            filter_keys: prop("lsmlab.filter.keys"),
            index_bytes: prop("lsmlab.index.bytes"),
            block_cache_bytes: prop("rocksdb.block-cache-usage"),
            process: ProcessFigures::between((before.cpu, before.at), (after.cpu, after.at)),
            device_time_s: device_time_s(&g, t_r, t_w),
            io: io_figures(&g),
            tickers: Ticker::ALL
                .iter()
                .map(|&t| (t.name().to_string(), d(t)))
                .collect(),
        }
    }
}

impl EngineFigures for LsmFigures {
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
        let mut s = String::new();
        let opt = |v: Option<f64>, prec: usize| match v {
            Some(x) => format!("{x:.prec$}"),
            None => "n/a".to_string(),
        };
        let mb = |b: u64| format!("{:.1} MB", b as f64 / 1_048_576.0);
        let omb = |b: Option<u64>| b.map(mb).unwrap_or_else(|| "n/a".to_string());
        let _ = writeln!(s, "-- lsmlab: {title} --");
        let _ = writeln!(
            s,
            "lsmlab write_amp            : {} (WAL-inclusive {}; user {}, flush {}, compaction {}, blob+gc+float-up {} (blob and gc are within flush and compaction), WAL {})",
            opt(self.write_amp, 3),
            opt(self.write_amp_with_wal, 3),
            mb(self.user_bytes_written),
            mb(self.flush_bytes),
            mb(self.compaction_write_bytes),
            mb(self.blob_gc_floatup_bytes),
            mb(self.wal_bytes)
        );
        let _ = writeln!(
            s,
            "lsmlab read_amp             : {} (read from disk {}, returned {})",
            opt(self.read_amp, 3),
            mb(self.user_read_disk_bytes),
            mb(self.bytes_returned)
        );
        let _ = writeln!(
            s,
            "lsmlab files_checked_per_get: {} ({} files over {} gets found on disk; {} files probed)",
            opt(self.files_checked_per_get, 3),
            self.files_checked_found,
            self.gets_found_on_disk,
            self.files_probed
        );
        let _ = writeln!(
            s,
            "lsmlab filter_fpr           : {} (useful {}, positive {}, true positive {})",
            self.filter_fpr
                .map(|f| format!("{:.4}%", f * 100.0))
                .unwrap_or_else(|| "n/a".to_string()),
            self.filter_useful,
            self.filter_positive,
            self.filter_true_positive
        );
        let _ = writeln!(s, "{}", filter_levels::to_line(&self.filter_levels));
        let _ = writeln!(
            s,
            "lsmlab compactions          : {} (read {}, written {}, CPU {:.3} s)",
            self.compactions,
            mb(self.compaction_read_bytes),
            mb(self.compaction_write_bytes),
            self.compaction_cpu_micros as f64 / 1e6
        );
        let _ = writeln!(
            s,
            "lsmlab compaction_volume    : major {} (compaction input), minor {} (flushed)",
            mb(self.compaction_read_bytes),
            mb(self.flush_bytes)
        );
        let mut limits = format!(
            "L0 {}/{}/{} files",
            self.level0_triggers[0], self.level0_triggers[1], self.level0_triggers[2]
        );
        for (i, b) in self.level_max_bytes.iter().enumerate() {
            match b {
                // Above the base level of dynamic level sizing: nothing belongs there.
                0 => {
                    let _ = write!(limits, ", L{} -", i + 1);
                }
                // Universal compaction: a level holds one sorted run, whatever its size.
                &u64::MAX => {
                    let _ = write!(limits, ", L{} unlimited", i + 1);
                }
                b => {
                    let _ = write!(limits, ", L{} {}", i + 1, mb(*b));
                }
            }
        }
        let _ = writeln!(
            s,
            "lsmlab layout               : {} (preset {}); read ratio {}; limits {}",
            self.layout,
            self.layout_preset,
            opt(self.read_ratio, 3),
            limits
        );
        let _ = writeln!(
            s,
            "lsmlab float_ups            : {} (read {}, written {}, {} versions dropped; {} asked, {} skipped since open)",
            self.float_ups,
            mb(self.float_up_read_bytes),
            mb(self.float_up_write_bytes),
            self.float_up_keys_dropped,
            self.float_ups_requested,
            self.float_ups_skipped
        );
        let _ = writeln!(
            s,
            "lsmlab float_ups_undone     : {} (compacted out of level 0 within the read-ratio window of their float-up)",
            self.float_ups_undone
        );
        let _ = writeln!(
            s,
            "lsmlab level0               : {} tables ({} floated, the others flushed)",
            self.level0_files,
            self.level0_floated_files
                .map_or_else(|| "none".to_string(), |n| n.to_string())
        );
        let _ = writeln!(s, "{}", self.stalls_line());
        let _ = writeln!(s, "{}", self.inline_work_line());
        let _ = writeln!(s, "{}", self.sim.to_line());
        let _ = writeln!(
            s,
            "lsmlab db_size              : {} (SST files {})",
            omb(self.db_size_bytes),
            omb(self.sst_files_bytes)
        );
        let _ = writeln!(
            s,
            "lsmlab memory               : peak RSS {}, filters {} ({} keys), index {}, block cache {}",
            omb(self.peak_rss_bytes),
            omb(self.filter_bytes),
            self.filter_keys
                .map(|k| k.to_string())
                .unwrap_or_else(|| "n/a".to_string()),
            omb(self.index_bytes),
            omb(self.block_cache_bytes)
        );
        let (pr, pw) = self
            .io
            .values()
            .fold((0, 0), |(r, w), x| (r + x.pages_read, w + x.pages_written));
        let _ = writeln!(
            s,
            "lsmlab device_time         : {:.3} s ({} pages read x {} us + {} pages written x {} us, 8 KiB pages; wall {:.3} s)",
            self.device_time_s,
            pr,
            self.device_read_micros,
            pw,
            self.device_write_micros,
            self.process.wall_s
        );
        let _ = writeln!(s, "{}", self.process.cpu_line());
        s
    }
}

/// The growth of an engine's counters between two snapshots (never negative).
struct Growth<'a> {
    before: &'a EngineSnapshot,
    after: &'a EngineSnapshot,
}

impl Growth<'_> {
    fn ticker(&self, t: Ticker) -> u64 {
        self.after.ticker(t).saturating_sub(self.before.ticker(t))
    }

    fn io(&self, c: IoCategory) -> IoCounts {
        let (a, b) = (self.after.io(c), self.before.io(c));
        IoCounts {
            bytes_read: a.bytes_read.saturating_sub(b.bytes_read),
            bytes_written: a.bytes_written.saturating_sub(b.bytes_written),
            pages_read: a.pages_read.saturating_sub(b.pages_read),
            pages_written: a.pages_written.saturating_sub(b.pages_written),
        }
    }
}

/// The FSLSM study's metrics over `g`; `user` is [bytes written, bytes returned] as the block
/// counts them (the engine's tickers, or the benchmark's own counts when those are silent).
fn sim_figures(
    g: &Growth,
    db: &Db,
    user: [u64; 2],
    flush_bytes: u64,
    compaction_write_bytes: u64,
) -> SimFigures {
    let prop = |name: &str| db.property_int(name);
    let opts = db.options();
    let background = [
        IoCategory::Flush,
        IoCategory::Compaction,
        IoCategory::Blob,
        IoCategory::Gc,
        IoCategory::FloatUp,
    ];
    let live_tables: u64 = (0..opts.num_levels)
        .filter_map(|l| prop(&format!("rocksdb.num-files-at-level{l}")))
        .sum();
    let meta = prop("lsmlab.filter.bytes").unwrap_or(0) + prop("lsmlab.index.bytes").unwrap_or(0);
    SimFigures::from_counts(&SimCounts {
        user_bytes: user[0],
        returned_bytes: user[1],
        flush_bytes,
        flush_table_bytes: g.io(IoCategory::Flush).bytes_written,
        compaction_write_bytes,
        float_up_write_bytes: g.ticker(Ticker::FloatUpWriteBytes),
        device_read_bytes: g.io(IoCategory::UserRead).bytes_read
            + background.iter().map(|&c| g.io(c).bytes_read).sum::<u64>(),
        files_probed: g.ticker(Ticker::FilesProbed),
        table_meta_bytes: lsmlab::sst::footer::FOOTER_LEN as u64
            + meta.checked_div(live_tables).unwrap_or(0),
        user_read_pages: g.io(IoCategory::UserRead).pages_read,
        data_block_reads: g.ticker(Ticker::BloomFilterFullPositive),
        background_pages_read: background.iter().map(|&c| g.io(c).pages_read).sum(),
        pages_written: IoCategory::ALL.iter().map(|&c| g.io(c).pages_written).sum(),
        t_r: opts.fslsm.device_read_micros,
        t_w: opts.fslsm.device_write_micros,
    })
}

/// Seconds of the FSLSM device-time model: pages read × `t_r` + pages written × `t_w` (µs).
fn device_time_s(g: &Growth, t_r: f64, t_w: f64) -> f64 {
    IoCategory::ALL
        .iter()
        .map(|&c| {
            let x = g.io(c);
            x.pages_read as f64 * t_r + x.pages_written as f64 * t_w
        })
        .sum::<f64>()
        / 1e6
}

/// Each I/O category's traffic, by the category's name.
fn io_figures(g: &Growth) -> BTreeMap<String, IoFigures> {
    IoCategory::ALL
        .iter()
        .map(|&c| {
            let x = g.io(c);
            let figures = IoFigures {
                bytes_read: x.bytes_read,
                bytes_written: x.bytes_written,
                pages_read: x.pages_read,
                pages_written: x.pages_written,
            };
            (c.name().to_string(), figures)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsmlab::Options;

    #[test]
    fn figures_fall_back_to_client_counts_and_print_na() {
        let dir = tempfile::tempdir().unwrap();
        let db = Db::open(dir.path(), Options::default()).unwrap();
        let before = EngineSnapshot::take(&db);
        db.statistics().add(Ticker::BloomFilterUseful, 90);
        db.statistics().add(Ticker::BloomFilterFullPositive, 12);
        db.statistics().add(Ticker::BloomFilterFullTruePositive, 2);
        db.statistics().add(Ticker::FlushWriteBytes, 300);
        db.statistics().add(Ticker::StallMicros, 2_500_000);
        db.statistics().add(Ticker::StallMemtableStops, 3);
        db.statistics()
            .add(Ticker::StallMemtableStopMicros, 2_500_000);
        db.io_stats().record_read(IoCategory::UserRead, 0, 8192 * 2);
        db.io_stats().record_write(IoCategory::Wal, 0, 100);
        let after = EngineSnapshot::take(&db);
        let f = LsmFigures::between(
            &before,
            &after,
            &db,
            dir.path(),
            ClientCounts {
                bytes_written: 100,
                bytes_returned: 0,
            },
        );
        assert_eq!(f.write_amp, Some(3.0));
        assert_eq!(f.filter_fpr, Some(0.1));
        assert_eq!(f.read_amp, None);
        // 2 pages read x 50 us + 1 page written x 200 us.
        assert!(
            (f.device_time_s - 300e-6).abs() < 1e-12,
            "{}",
            f.device_time_s
        );
        assert_eq!(f.io["user"].bytes_read, 16384);
        assert_eq!(f.wal_bytes, 100);
        assert_eq!(f.tickers["rocksdb.bloom.filter.useful"], 90);
        // The process figures sit, flattened, where the JSON has always had them.
        let json = serde_json::to_string(&f).unwrap();
        let at = |name: &str| json.find(&format!("\"{name}\":")).expect(name);
        let order = [
            "block_cache_bytes",
            "cpu_user_s",
            "cpu_sys_s",
            "wall_s",
            "device_time_s",
        ]
        .map(at);
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{json}");
        assert!(!json.contains("\"process\""), "{json}");
        let text = f.to_text("t");
        assert!(
            text.contains("lsmlab write_amp            : 3.000"),
            "{text}"
        );
        assert!(text.contains("lsmlab read_amp             : n/a"), "{text}");
        assert!(
            text.contains("lsmlab stalls               : 2.500 s, ")
                && text.contains(
                    "(L0 slowdown 0 x 0.000 s, L0 stop 0 x 0.000 s, memtable stop 3 x 2.500 s,"
                ),
            "{text}"
        );
        assert!(
            text.contains("lsmlab filter_fpr           : 10.0000%"),
            "{text}"
        );
    }
}
