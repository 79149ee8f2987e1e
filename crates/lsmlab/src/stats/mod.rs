//! Tickers and histograms, named as RocksDB names them so existing parsers read them.
//!
//! A ticker is a counter; a histogram records a distribution (microseconds, bytes, counts).
//! [`Statistics::to_rocksdb_string`] prints them exactly as `db_bench --statistics` does.

use filter_levels::FilterLevels;
pub use filter_levels::{FilterProbe, LevelFilterCounts, MAX_LEVELS};
use hdrhistogram::Histogram;
use parking_lot::Mutex;
use std::fmt::Write as _;
use std::time::Instant;
use stripes::StripedCounters;

mod filter_levels;
mod stripes;

macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident => $s:expr,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(usize)]
        pub enum $name { $($(#[$vm])* $v,)* }
        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            /// The name printed in statistics dumps.
            pub fn name(self) -> &'static str {
                match self { $($name::$v => $s,)* }
            }
        }
    };
}

named_enum!(
    /// Counters.
    Ticker {
        /// Block cache lookups that missed.
        BlockCacheMiss => "rocksdb.block.cache.miss",
        /// Block cache lookups that hit.
        BlockCacheHit => "rocksdb.block.cache.hit",
        /// Blocks inserted into the block cache.
        BlockCacheAdd => "rocksdb.block.cache.add",
        /// Data-block cache misses.
        BlockCacheDataMiss => "rocksdb.block.cache.data.miss",
        /// Data-block cache hits.
        BlockCacheDataHit => "rocksdb.block.cache.data.hit",
        /// Filter probes that said "absent" (a table read saved).
        BloomFilterUseful => "rocksdb.bloom.filter.useful",
        /// Filter probes that said "maybe present".
        BloomFilterFullPositive => "rocksdb.bloom.filter.full.positive",
        /// "Maybe present" answers where the key was present.
        BloomFilterFullTruePositive => "rocksdb.bloom.filter.full.true.positive",
        /// Gets answered by a memtable.
        MemtableHit => "rocksdb.memtable.hit",
        /// Gets not answered by any memtable.
        MemtableMiss => "rocksdb.memtable.miss",
        /// Gets answered by level 0.
        GetHitL0 => "rocksdb.l0.hit",
        /// Gets answered by level 1.
        GetHitL1 => "rocksdb.l1.hit",
        /// Gets answered by level 2 or deeper.
        GetHitL2AndUp => "rocksdb.l2andup.hit",
        /// Keys written.
        NumberKeysWritten => "rocksdb.number.keys.written",
        /// Keys read by gets.
        NumberKeysRead => "rocksdb.number.keys.read",
        /// Gets that found their key.
        NumberKeysFound => "rocksdb.number.keys.found",
        /// User bytes written (key + value).
        BytesWritten => "rocksdb.bytes.written",
        /// User bytes returned by gets.
        BytesRead => "rocksdb.bytes.read",
        /// Seeks on iterators.
        NumberDbSeek => "rocksdb.number.db.seek",
        /// Next calls on iterators.
        NumberDbNext => "rocksdb.number.db.next",
        /// Prev calls on iterators.
        NumberDbPrev => "rocksdb.number.db.prev",
        /// Microseconds writers waited in slowdowns and stops.
        StallMicros => "rocksdb.stall.micros",
        /// Bytes read by compactions.
        CompactReadBytes => "rocksdb.compact.read.bytes",
        /// Bytes written by compactions (tables and blob files).
        CompactWriteBytes => "rocksdb.compact.write.bytes",
        /// Bytes written by flushes (tables and blob files).
        FlushWriteBytes => "rocksdb.flush.write.bytes",
        /// Bytes written to blob files (records, headers and footers).
        BlobFileBytesWritten => "rocksdb.blobdb.blob.file.bytes.written",
        /// Bytes read from blob files to serve values.
        BlobFileBytesRead => "rocksdb.blobdb.blob.file.bytes.read",
        /// Bytes of live blob records that garbage collection rewrote into new blob files.
        BlobGcBytesRelocated => "rocksdb.blobdb.gc.bytes.relocated",
        /// Bytes written to the WAL.
        WalFileBytes => "rocksdb.wal.bytes",
        /// WAL syncs.
        WalFileSynced => "rocksdb.wal.synced",
        /// Writes done by their own thread as group leader.
        WriteDoneBySelf => "rocksdb.write.self",
        /// Writes done by another thread's group commit.
        WriteDoneByOther => "rocksdb.write.other",
        /// Writes that asked for the WAL.
        WriteWithWal => "rocksdb.write.wal",
        /// Entries dropped by compaction because a newer version shadows them.
        CompactionKeyDropNewerEntry => "rocksdb.compaction.key.drop.new",
        /// Deletion markers dropped by compaction at the bottom of the tree.
        CompactionKeyDropObsolete => "rocksdb.compaction.key.drop.obsolete",
        /// Bytes gets and iterators read from table and blob files (data blocks not in the block
        /// cache, blob records): the `Env`'s `user` read bytes.
        GetReadBytes => "lsmlab.user.read.bytes",
        /// Tables probed by gets (a table whose key range contained the key).
        FilesProbed => "lsmlab.get.files.probed",
        /// Gets that found their key in a table.
        GetsFoundOnDisk => "lsmlab.get.found.on.disk",
        /// Tables checked by gets that found their key on disk, up to the one that held it.
        FilesCheckedFound => "lsmlab.get.files.checked.found",
        /// Compactions run.
        Compactions => "lsmlab.compactions",
        /// Compactions that moved a file without rewriting it.
        TrivialMoves => "lsmlab.trivial.moves",
        /// Compactions that merged level-0 tables into one level-0 table because level 0 could
        /// not compact into the base level (also counted in `lsmlab.compactions`).
        IntraL0Compactions => "lsmlab.compactions.intra.l0",
        /// Flushes run.
        Flushes => "lsmlab.flushes",
        /// FSLSM float-ups run (not counted in `lsmlab.compactions`).
        FloatUps => "lsmlab.floatup.count",
        /// Bytes of tables float-ups read: the floated table and the overlapping tables of the
        /// levels it crossed.
        FloatUpReadBytes => "lsmlab.floatup.read.bytes",
        /// Bytes of tables float-ups wrote.
        FloatUpWriteBytes => "lsmlab.floatup.write.bytes",
        /// Versions float-ups dropped because a newer version in a crossed level shadows them
        /// for every reader.
        FloatUpKeysDropped => "lsmlab.floatup.keys.dropped",
        /// FSLSM float-ups undone: a compaction took a table the float-up wrote out of level 0
        /// within `read_ratio_window` operations of the float-up (each float-up counted once).
        FloatUpsUndone => "lsmlab.floatup.undone",
        /// Filter blocks written.
        FilterBlocksBuilt => "lsmlab.filter.blocks.built",
        /// Microseconds spent building filter blocks, each build rounded up to a whole
        /// microsecond.
        FilterBuildMicros => "lsmlab.filter.build.micros",
        /// Writes delayed because level 0 reached `level0_slowdown_writes_trigger` files.
        StallL0Slowdowns => "lsmlab.stall.l0.slowdown.count",
        /// Writes stopped because level 0 reached `level0_stop_writes_trigger` files.
        StallL0Stops => "lsmlab.stall.l0.stop.count",
        /// Writes stopped because `max_write_buffer_number` memtables were full.
        StallMemtableStops => "lsmlab.stall.memtable.stop.count",
        /// Writes delayed because pending compaction bytes passed the soft limit.
        StallPendingSlowdowns => "lsmlab.stall.pending.slowdown.count",
        /// Writes stopped because pending compaction bytes passed the hard limit.
        StallPendingStops => "lsmlab.stall.pending.stop.count",
        /// Microseconds writers were delayed because level 0 reached
        /// `level0_slowdown_writes_trigger` files.
        StallL0SlowdownMicros => "lsmlab.stall.l0.slowdown.micros",
        /// Microseconds writers were stopped because level 0 reached
        /// `level0_stop_writes_trigger` files.
        StallL0StopMicros => "lsmlab.stall.l0.stop.micros",
        /// Microseconds writers were stopped because `max_write_buffer_number` memtables were
        /// full (waiting for a flush).
        StallMemtableStopMicros => "lsmlab.stall.memtable.stop.micros",
        /// Microseconds writers were delayed because pending compaction bytes passed the soft
        /// limit.
        StallPendingSlowdownMicros => "lsmlab.stall.pending.slowdown.micros",
        /// Microseconds writers were stopped because pending compaction bytes passed the hard
        /// limit.
        StallPendingStopMicros => "lsmlab.stall.pending.stop.micros",
    }
);

/// Why a writer waited: each cause counts its waits and their microseconds in a ticker of its
/// own (and every wait in `rocksdb.stall.micros`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StallCause {
    /// Level 0 reached `level0_slowdown_writes_trigger` files: the write was delayed.
    L0Slowdown,
    /// Level 0 reached `level0_stop_writes_trigger` files: the write stopped.
    L0Stop,
    /// `max_write_buffer_number` memtables were full: the write stopped for a flush.
    MemtableStop,
    /// Pending compaction bytes passed the soft limit: the write was delayed.
    PendingSlowdown,
    /// Pending compaction bytes passed the hard limit: the write stopped.
    PendingStop,
}

impl StallCause {
    /// Every cause, in the order the lsmlab block prints them.
    pub const ALL: [StallCause; 5] = [
        StallCause::L0Slowdown,
        StallCause::L0Stop,
        StallCause::MemtableStop,
        StallCause::PendingSlowdown,
        StallCause::PendingStop,
    ];

    /// A short name for people: `L0 slowdown`, `memtable stop`, ….
    pub fn label(self) -> &'static str {
        match self {
            StallCause::L0Slowdown => "L0 slowdown",
            StallCause::L0Stop => "L0 stop",
            StallCause::MemtableStop => "memtable stop",
            StallCause::PendingSlowdown => "pending slowdown",
            StallCause::PendingStop => "pending stop",
        }
    }

    /// The ticker counting this cause's waits.
    pub fn count_ticker(self) -> Ticker {
        match self {
            StallCause::L0Slowdown => Ticker::StallL0Slowdowns,
            StallCause::L0Stop => Ticker::StallL0Stops,
            StallCause::MemtableStop => Ticker::StallMemtableStops,
            StallCause::PendingSlowdown => Ticker::StallPendingSlowdowns,
            StallCause::PendingStop => Ticker::StallPendingStops,
        }
    }

    /// The ticker adding up this cause's microseconds.
    pub fn micros_ticker(self) -> Ticker {
        match self {
            StallCause::L0Slowdown => Ticker::StallL0SlowdownMicros,
            StallCause::L0Stop => Ticker::StallL0StopMicros,
            StallCause::MemtableStop => Ticker::StallMemtableStopMicros,
            StallCause::PendingSlowdown => Ticker::StallPendingSlowdownMicros,
            StallCause::PendingStop => Ticker::StallPendingStopMicros,
        }
    }
}

named_enum!(
    /// Distributions.
    HistogramKind {
        /// Microseconds per get.
        DbGet => "rocksdb.db.get.micros",
        /// Microseconds per write.
        DbWrite => "rocksdb.db.write.micros",
        /// Microseconds per iterator seek.
        DbSeek => "rocksdb.db.seek.micros",
        /// Microseconds per compaction.
        CompactionTime => "rocksdb.compaction.times.micros",
        /// CPU microseconds per compaction.
        CompactionCpuTime => "rocksdb.compaction.times.cpu_micros",
        /// Microseconds per flush.
        FlushTime => "rocksdb.db.flush.micros",
        /// Microseconds per table-file write at flush, compaction and float-up: each block with
        /// its trailer, and the footer (with `Options::statistics`).
        SstWrite => "rocksdb.sst.write.micros",
        /// Microseconds per table-file read: data blocks not in the block cache, readahead
        /// windows of sequential readers, and the footer and meta blocks read when a table is
        /// opened (with `Options::statistics`).
        SstRead => "rocksdb.sst.read.micros",
        /// Microseconds per WAL sync.
        WalSync => "rocksdb.wal.file.sync.micros",
        /// Microseconds writers stalled.
        WriteStall => "rocksdb.db.write.stall",
        /// Microseconds per blob-file write.
        BlobFileWrite => "rocksdb.blobdb.blob.file.write.micros",
        /// Tables probed per get.
        FilesProbedPerGet => "lsmlab.get.files.probed.per.get",
        /// Microseconds per float-up.
        FloatUpTime => "lsmlab.floatup.micros",
    }
);

/// Highest value a histogram holds; larger values are clamped (an hour in microseconds).
const HISTOGRAM_MAX: u64 = 3_600_000_000;

/// Number of tickers.
const TICKERS: usize = Ticker::ALL.len();

/// The tickers and histograms of one database.
pub struct Statistics {
    tickers: StripedCounters<TICKERS>,
    histograms: Vec<Mutex<Histogram<u64>>>,
    /// The filter tickers of gets, by level.
    filter_levels: FilterLevels,
    /// Whether [`Statistics::start_timer`] reads the clock (`Options::statistics`).
    timing: bool,
}

impl Default for Statistics {
    fn default() -> Self {
        Statistics::new()
    }
}

/// A summary of one histogram.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HistogramSummary {
    /// Values recorded.
    pub count: u64,
    /// Sum of the values.
    pub sum: u64,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest value.
    pub max: f64,
}

impl Statistics {
    /// All counters at zero; [`Statistics::start_timer`] off.
    pub fn new() -> Statistics {
        Statistics::with_timing(false)
    }

    /// All counters at zero; with `timing`, [`Statistics::start_timer`] reads the clock so that
    /// the time histograms fed through it are recorded (a database passes
    /// `Options::statistics`).
    pub fn with_timing(timing: bool) -> Statistics {
        Statistics {
            timing,
            tickers: StripedCounters::default(),
            filter_levels: FilterLevels::default(),
            histograms: HistogramKind::ALL
                .iter()
                .map(|_| {
                    // 3 significant digits, as RocksDB's buckets are coarser than that.
                    Mutex::new(
                        Histogram::new_with_bounds(1, HISTOGRAM_MAX, 3)
                            .expect("constant histogram bounds are valid"),
                    )
                })
                .collect(),
        }
    }

    /// True if [`Statistics::start_timer`] reads the clock.
    pub fn timing(&self) -> bool {
        self.timing
    }

    /// The start of a timed operation, or `None` (no clock read) when timing is off.
    #[inline]
    pub fn start_timer(&self) -> Option<Instant> {
        self.timing.then(Instant::now)
    }

    /// Records the microseconds since `start` in `h`; nothing for `None`.
    #[inline]
    pub fn record_elapsed(&self, h: HistogramKind, start: Option<Instant>) {
        if let Some(t) = start {
            self.record(h, t.elapsed().as_micros() as u64);
        }
    }

    /// Adds `n` to a ticker.
    #[inline]
    pub fn add(&self, t: Ticker, n: u64) {
        self.tickers.add(t as usize, n);
    }

    /// Current value of a ticker.
    pub fn ticker(&self, t: Ticker) -> u64 {
        self.tickers.get(t as usize)
    }

    /// Counts what a get's probe of the filter of a table in `level` answered.
    #[inline]
    pub fn record_filter_probe(&self, level: usize, probe: FilterProbe) {
        self.filter_levels.record(level, probe);
    }

    /// The filter probes of gets in tables of `level` (levels past [`MAX_LEVELS`] count in
    /// the last).
    pub fn filter_level(&self, level: usize) -> LevelFilterCounts {
        self.filter_levels.get(level)
    }

    /// Records one value in a histogram.
    pub fn record(&self, h: HistogramKind, value: u64) {
        // The histogram's floor is 1: a sub-microsecond operation counts as 1 µs.
        self.histograms[h as usize]
            .lock()
            .saturating_record(value.clamp(1, HISTOGRAM_MAX));
    }

    /// Summary of one histogram.
    pub fn histogram(&self, h: HistogramKind) -> HistogramSummary {
        let hist = self.histograms[h as usize].lock();
        if hist.is_empty() {
            return HistogramSummary::default();
        }
        let sum = hist
            .iter_recorded()
            .map(|v| v.value_iterated_to() * v.count_at_value())
            .sum();
        HistogramSummary {
            count: hist.len(),
            sum,
            p50: hist.value_at_quantile(0.50) as f64,
            p95: hist.value_at_quantile(0.95) as f64,
            p99: hist.value_at_quantile(0.99) as f64,
            max: hist.max() as f64,
        }
    }

    /// Resets every ticker and histogram (between benchmarks).
    pub fn reset(&self) {
        self.tickers.reset();
        self.filter_levels.reset();
        for h in &self.histograms {
            h.lock().reset();
        }
    }

    /// The dump `db_bench --statistics` prints: `name COUNT : n` lines, then
    /// `name P50 : x P95 : x P99 : x P100 : x COUNT : n SUM : s` lines. The filter tickers by
    /// level follow the tickers, for the levels whose filters were probed
    /// (`lsmlab.filter.level<N>.useful`, `.positive`, `.true.positive`).
    pub fn to_rocksdb_string(&self) -> String {
        let mut s = String::new();
        for &t in Ticker::ALL {
            let _ = writeln!(s, "{} COUNT : {}", t.name(), self.ticker(t));
        }
        for level in 0..MAX_LEVELS {
            let c = self.filter_level(level);
            if c.is_empty() {
                continue;
            }
            let name = format!("lsmlab.filter.level{level}");
            let _ = writeln!(s, "{name}.useful COUNT : {}", c.useful);
            let _ = writeln!(s, "{name}.positive COUNT : {}", c.positive);
            let _ = writeln!(s, "{name}.true.positive COUNT : {}", c.true_positive);
        }
        for &h in HistogramKind::ALL {
            let v = self.histogram(h);
            let _ = writeln!(
                s,
                "{} P50 : {:.6} P95 : {:.6} P99 : {:.6} P100 : {:.6} COUNT : {} SUM : {}",
                h.name(),
                v.p50,
                v.p95,
                v.p99,
                v.max,
                v.count,
                v.sum
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dump_uses_rocksdb_line_formats() {
        let s = Statistics::new();
        s.add(Ticker::BloomFilterUseful, 7);
        s.record(HistogramKind::DbGet, 10);
        s.record(HistogramKind::DbGet, 30);
        let text = s.to_rocksdb_string();
        assert!(text.contains("rocksdb.bloom.filter.useful COUNT : 7\n"));
        let line = text
            .lines()
            .find(|l| l.starts_with("rocksdb.db.get.micros "))
            .unwrap();
        assert!(line.contains("COUNT : 2 SUM : 40"), "{line}");
        assert!(line.contains("P100 : 30.000000"), "{line}");
        assert!(
            !text.contains("lsmlab.filter.level"),
            "no probe, no per-level line"
        );
        s.record_filter_probe(3, FilterProbe::TruePositive);
        let text = s.to_rocksdb_string();
        assert!(
            text.contains("lsmlab.filter.level3.positive COUNT : 1\n"),
            "{text}"
        );
        assert!(text.contains("lsmlab.filter.level3.true.positive COUNT : 1\n"));
        s.reset();
        assert!(s.filter_level(3).is_empty());
    }
}
