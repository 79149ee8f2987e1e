//! The flag table: every flag `lsmlab bench` implements with db_bench's name, type, default
//! (db_bench 11.9's, `tests/defaults.rs` checks them flag by flag against its `--help`) and help; the db_bench flags it refuses by name; the
//! benchmarks it runs and those it refuses.

use super::value::FlagValue;
use crate::error::{CliError, CliResult};
use serde::Serialize;

macro_rules! flags {
    ($( $(#[doc = $doc:literal])+ $name:ident : $ty:ty = $default:expr ;)*) => {
        /// Every flag `lsmlab bench` implements, with db_bench's name and default.
        #[derive(Debug, Clone, Serialize)]
        pub struct BenchFlags {
            $( $(#[doc = $doc])+ pub $name: $ty, )*
        }

        impl Default for BenchFlags {
            fn default() -> Self {
                BenchFlags { $( $name: $default, )* }
            }
        }

        /// Names of the flags `lsmlab bench` implements.
        pub const SUPPORTED: &[&str] = &[$(stringify!($name),)*];

        impl BenchFlags {
            /// Sets flag `name` from its text; the error names the flag and what is allowed.
            pub fn set_raw(&mut self, name: &str, raw: &str) -> CliResult<()> {
                match name {
                    $( stringify!($name) => {
                        self.$name = <$ty as FlagValue>::parse_flag(name, raw)?;
                        Ok(())
                    } )*
                    _ => Err(CliError::new(format!("unknown flag --{name}"))),
                }
            }

            /// True if flag `name` is a boolean (which takes `--name` and `--noname`).
            pub(super) fn is_bool(name: &str) -> bool {
                match name {
                    $( stringify!($name) => <$ty as FlagValue>::IS_BOOL, )*
                    _ => false,
                }
            }

            /// One line per flag: name, default, help.
            pub fn help() -> String {
                let d = BenchFlags::default();
                let mut s = String::from(
                    "usage: lsmlab bench [--flag=value]...  (db_bench's flags, names and defaults)\n",
                );
                $(
                    let help: &[&str] = &[$($doc),+];
                    s.push_str(&format!(
                        "  --{:<38} default: {:?}\n      {}\n",
                        stringify!($name),
                        d.$name,
                        help.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ")
                    ));
                )*
                s.push_str(&format!(
                    "db_bench flags refused until lsmlab supports them:\n  {}\n",
                    REFUSED.join(" ")
                ));
                s
            }
        }
    };
}

flags! {
    /// Comma-separated benchmarks, run in order: fillseq, fillrandom, overwrite, readrandom,
    /// readseq, readreverse, readwhilewriting, readrandomwriterandom, seekrandom,
    /// seekrandomwhilewriting, deleterandom,
    /// readmissing, flush, compact, waitforcompaction, stats, levelstats, sstables.
    benchmarks: String = "fillseq,fillrandom,overwrite,readrandom,seekrandom,readseq,readreverse,readwhilewriting,readrandomwriterandom".to_string();
    /// Number of key/values to place in the database.
    num: u64 = 1_000_000;
    /// Reads per thread; negative means --num reads.
    reads: i64 = -1;
    /// Writes per thread for the write benchmarks; negative means --num writes.
    writes: i64 = -1;
    /// Deletes per thread for deleterandom; negative means --num deletes.
    deletes: i64 = -1;
    /// Bytes of each key (8 bytes of the key number, big-endian, then '0' padding).
    key_size: usize = 16;
    /// Bytes of each value.
    value_size: usize = 100;
    /// Fraction of each value that is random (the rest repeats it, so it compresses to this).
    compression_ratio: f64 = 0.5;
    /// Concurrent threads (readwhilewriting adds one writer).
    threads: usize = 1;
    /// Seed base of the random generators; 0 derives one from the clock (and prints it).
    seed: u64 = 0;
    /// Directory of the database (default /tmp/lsmlabtest-<uid>/dbbench).
    db: String = String::new();
    /// Keep the database found at --db; the fill benchmarks are then skipped.
    use_existing_db: bool = false;
    /// Bloom (or Ribbon) bits per key; negative means no filter.
    bloom_bits: f64 = -1.0;
    /// Build Ribbon filters instead of Bloom (same Bloom-equivalent bits per key).
    use_ribbon_filter: bool = false;
    /// With Ribbon: tables written to levels below this one get Bloom; a flush counts as
    /// level -1, so the default 0 means Bloom for flushes and Ribbon for compaction output;
    /// -1 means Ribbon everywhere, a large value Bloom everywhere (RocksDB's
    /// `bloom_before_level`; db_bench has no such flag).
    bloom_before_level: i32 = 0;
    /// No filter for tables written to the last level, the deepest that holds data (RocksDB's
    /// optimize_filters_for_hits): most filter memory goes, and each get of a missing key
    /// reads that level's table. Flushes keep their filters.
    optimize_filters_for_hits: bool = false;
    /// lsmlab: bits per key by level, comma-separated, level 0 first (a flush takes level 0's,
    /// levels past the list its last entry; 0: no filter there), e.g. 10,10,8,6; overrides
    /// --bloom_bits and --bloom_allocation. Empty: --bloom_bits on every level.
    bloom_bits_per_level: String = String::new();
    /// lsmlab: how --bloom_bits' memory is spread over the levels: uniform, or monkey (the
    /// same memory, fewer false positives summed over the levels: Monkey, SIGMOD 2017).
    bloom_allocation: String = "uniform".to_string();
    /// Bytes of user data per data block.
    block_size: usize = 4096;
    /// Bytes of block cache; 0 or negative disables it (db_bench 11's default, 32 MiB; 7.8's
    /// was 8 MiB, the engine's `Options` default).
    cache_size: i64 = 32 << 20;
    /// Bytes a memtable gathers before it is flushed.
    write_buffer_size: usize = 64 << 20;
    /// Memtables (active plus immutable) before writes stop.
    max_write_buffer_number: usize = 2;
    /// Bytes all memtables together should hold (RocksDB's write buffer manager); 0: no
    /// budget beyond --write_buffer_size × --max_write_buffer_number.
    db_write_buffer_size: usize = 0;
    /// Size at which compaction output is cut into a new table.
    target_file_size_base: u64 = 64 << 20;
    /// Target size of level 1.
    max_bytes_for_level_base: u64 = 256 << 20;
    /// Growth factor between level targets.
    max_bytes_for_level_multiplier: f64 = 10.0;
    /// Level-0 files that trigger a compaction.
    level0_file_num_compaction_trigger: usize = 4;
    /// Level-0 files at which writes slow down.
    level0_slowdown_writes_trigger: usize = 20;
    /// Level-0 files at which writes stop.
    level0_stop_writes_trigger: usize = 36;
    /// Bytes per second writes may go while level 0 is over the slowdown trigger (db_bench's
    /// default, 8 MiB/s, is half the engine's).
    delayed_write_rate: u64 = 8 << 20;
    /// Table and blob files start their writeback every this many bytes (0 = off).
    bytes_per_sync: u64 = 0;
    /// Read tables and blob files through memory maps (LevelDB's default; RocksDB's
    /// allow_mmap_reads).
    mmap_read: bool = false;
    /// Number of levels.
    num_levels: usize = 7;
    /// Background flush and compaction threads.
    max_background_jobs: usize = 2;
    /// Keys between restart points in a data block.
    block_restart_interval: usize = 16;
    /// Never compact automatically.
    disable_auto_compactions: bool = false;
    /// Block compression: none, snappy, lz4, zstd (db_bench's default, snappy; the engine's
    /// `Options` default is none).
    compression_type: String = "snappy".to_string();
    /// Print the engine's tickers and histograms at the end (RocksDB's dump format).
    statistics: bool = false;
    /// Print a latency histogram per operation type after each benchmark.
    histogram: bool = false;
    /// Accepted for db_bench compatibility: lsmlab always reports background I/O in its block.
    report_bg_io_stats: bool = false;
    /// readrandomwriterandom: percent of operations that are reads.
    readwritepercent: u32 = 90;
    /// Sync the WAL on every write.
    sync: bool = false;
    /// Write without the WAL.
    disable_wal: bool = false;
    /// Entries per write batch in the write benchmarks.
    batch_size: usize = 1;
    /// seekrandom: Next() calls after each seek.
    seek_nexts: usize = 0;
    /// Key-value separation: flush and compaction write values of at least --min_blob_size
    /// bytes to blob files, tables keep a blob index.
    enable_blob_files: bool = false;
    /// Values at least this large go to blob files (with --enable_blob_files).
    min_blob_size: u64 = 0;
    /// Size of a blob file (with --enable_blob_files).
    blob_file_size: u64 = 256 << 20;
    /// Compression of each value in a blob file: none, snappy, lz4, zstd.
    blob_compression_type: String = "none".to_string();
    /// Garbage-collect blob files during compaction (with --enable_blob_files).
    enable_blob_garbage_collection: bool = false;
    /// Fraction of blob files, oldest first, whose live values compactions relocate.
    blob_garbage_collection_age_cutoff: f64 = 0.25;
    /// Garbage fraction of those oldest blob files that forces compactions (1.0: never).
    blob_garbage_collection_force_threshold: f64 = 1.0;
    /// Seconds each benchmark runs; 0 means it runs its operation count (`--num`, `--reads`,
    /// `--writes`) instead. With a duration the count no longer limits it.
    duration: u64 = 0;
    /// Seconds between rows of `--report_file` (`secs_elapsed,interval_qps`); 0: no report.
    report_interval_seconds: u64 = 0;
    /// The per-interval throughput file of `--report_interval_seconds`, rewritten by each
    /// benchmark.
    report_file: String = "report.csv".to_string();
    /// Seconds between progress lines on stdout (ops and ops/second, interval and total);
    /// 0: none.
    stats_interval_seconds: u64 = 0;
    /// With `--stats_interval_seconds`: above 0, print `rocksdb.stats` after each line.
    stats_per_interval: i32 = 0;
    /// Directory of the write-ahead logs (default: the database directory).
    wal_dir: String = String::new();
    /// Bytes per second the benchmark's writes are held to, over all writing threads
    /// (0: unlimited). readwhilewriting's writer is held to it too.
    benchmark_write_rate_limit: u64 = 0;
    /// Operations per second the benchmark's reads (gets, seeks, scan steps) are held to,
    /// over all reading threads (0: unlimited).
    benchmark_read_rate_limit: u64 = 0;
    /// seekrandom: position with SeekForPrev and step with Prev instead of Seek and Next.
    reverse_iterator: bool = false;
    /// Levels below this one are written uncompressed; -1: every level uses
    /// --compression_type (a flush writes level 0).
    min_level_to_compress: i32 = -1;
    /// 0: leveled compaction; 1: universal (tiered) compaction with RocksDB's rules, tuned by
    /// the --universal_* flags (lsmlab only; also --layout=universal). FIFO (2) is refused.
    compaction_style: i32 = 0;
    /// Universal: percent by which the next older sorted run may exceed the runs picked so far
    /// and still join a size-ratio compaction; 0: RocksDB's default (1), as db_bench.
    universal_size_ratio: i32 = 0;
    /// Universal: fewest sorted runs a size-ratio or run-count compaction merges; 0: RocksDB's
    /// default (2), as db_bench.
    universal_min_merge_width: i32 = 0;
    /// Universal: most sorted runs a size-ratio or run-count compaction merges; 0: RocksDB's
    /// default (no limit), as db_bench.
    universal_max_merge_width: i32 = 0;
    /// Universal: merge every run into one once the runs newer than the oldest add up to this
    /// percent of it; 0: RocksDB's default (200), as db_bench.
    universal_max_size_amplification_percent: i32 = 0;
    /// Universal: move the picked runs' tables down without rewriting them when none overlap.
    universal_allow_trivial_move: bool = false;
    /// Size the levels from the last one up (RocksDB's dynamic level bytes): the last level
    /// holds most data, each level above it a multiplier less, and levels that would be
    /// smaller than --max_bytes_for_level_base stay empty.
    level_compaction_dynamic_level_bytes: bool = false;
    /// lsmlab: seed 003's engines: leveldb (leveled, values in tables), wisckey (leveled, every
    /// value in blob files), fslsm (blob files, float-up and stretch). Sets --enable_blob_files
    /// and --min_blob_size=0 for wisckey and fslsm, overriding those flags; fslsm-nostretch and
    /// fslsm-nofloat: fslsm with stretch or float-up off; universal: universal compaction, as
    /// --compaction_style=1. Empty: leveled, separation as the blob flags say.
    layout: String = String::new();
    /// lsmlab, fslsm: operations over which the read ratio is measured.
    fslsm_read_ratio_window: usize = 5_000;
    /// lsmlab, fslsm: events (table hits and creations) over which table frequency is counted.
    fslsm_frequency_window: usize = 100_000;
    /// lsmlab, fslsm: float-up threshold gamma (smaller floats more often).
    fslsm_gamma: f64 = 5.0;
    /// lsmlab, fslsm: stretch increments per level, comma-separated (level 0 in files, others
    /// in tables of --target_file_size_base).
    fslsm_stretch_increments: String = "20,10,5,0,0,0,0".to_string();
    /// lsmlab, fslsm: where hot tables float: level0, cost (level 0 when the corrected cost
    /// model says it pays), or off (no float-up).
    fslsm_float_target: String = "level0".to_string();
    /// lsmlab, fslsm: skip a float-up that would read more tables of the levels it crosses.
    fslsm_max_float_overlap_files: usize = 25;
    /// lsmlab: device time of a page read in microseconds (T_R; the cost model and the
    /// device_time line).
    fslsm_device_read_micros: f64 = 50.0;
    /// lsmlab: device time of a page write in microseconds (T_W).
    fslsm_device_write_micros: f64 = 200.0;
    /// lsmlab: level limits in tables when not 0: level i >= 1 holds this many tables times
    /// --max_bytes_for_level_multiplier^(i-1) (10: 10, 100, 1000, ...); 0: limits in bytes.
    max_files_for_level_base: u64 = 0;
    /// lsmlab, leveled: compact a table down, though its level is under its target, once the
    /// obsolete versions upper tables hide are estimated past this percent of the live data;
    /// 0: never (RocksDB).
    max_obsolete_percent: u32 = 5;
    /// lsmlab: which tables a level over its limit compacts: overlap (RocksDB's least
    /// overlapping table; all of level 0) or frequency (the tables gets hit least).
    compaction_victims: String = "overlap".to_string();
    /// lsmlab: flushes, compactions and float-ups done by the calling thread after each
    /// operation instead of in background threads, so that repeats count the same.
    deterministic_background: bool = false;
    /// lsmlab: a named tree shape (fslsm-study: the FSLSM study's simulator tree), applied
    /// over the other flags; a flag it sets may not be given with it.
    shape: String = String::new();
    /// lsmlab: write every figure of the run to this JSON file.
    json: String = String::new();
    /// lsmlab: the engine the benchmarks run on: lsmlab (this program's), rocksdb, leveldb or
    /// fjall (when built with the cargo features of the same names; docs/engines.md).
    engine: String = "lsmlab".to_string();
}

/// db_bench flags lsmlab knows but does not implement yet: refused by name, never ignored.
pub const REFUSED: &[&str] = &[
    "numdistinct",
    "use_direct_reads",
    "use_direct_io_for_flush_and_compaction",
    "mmap_write",
    "compression_level",
    "compressed_cache_size",
    "cache_index_and_filter_blocks",
    "partition_index_and_filters",
    "wal_bytes_per_sync",
    "rate_limiter_bytes_per_sec",
    "keys_per_prefix",
    "prefix_size",
    "num_column_families",
    "value_size_distribution_type",
    "perf_level",
    "stats_interval",
    "stats_dump_period_sec",
    "blob_file_starting_level",
    "use_blob_cache",
    "enable_pipelined_write",
    "min_write_buffer_number_to_merge",
    "report_file_operations",
    "options_file",
    "use_plain_table",
    "readonly",
    "max_num_range_tombstones",
    "use_uint64_comparator",
    "max_scan_distance",
    "key_id_range",
    "read_random_exp_range",
    "max_total_wal_size",
    "soft_pending_compaction_bytes_limit",
    "hard_pending_compaction_bytes_limit",
    "user_timestamp_size",
    "use_existing_keys",
];

/// Benchmarks lsmlab implements.
pub const BENCHMARKS: &[&str] = &[
    "fillseq",
    "fillrandom",
    "overwrite",
    "readrandom",
    "readseq",
    "readreverse",
    "readwhilewriting",
    "readrandomwriterandom",
    "seekrandom",
    "seekrandomwhilewriting",
    "deleterandom",
    "readmissing",
    "flush",
    "compact",
    "waitforcompaction",
    "stats",
    "levelstats",
    "sstables",
];

/// db_bench benchmarks lsmlab knows but does not implement yet.
pub const REFUSED_BENCHMARKS: &[&str] = &[
    "fillseqdeterministic",
    "fillsync",
    "fill100K",
    "filluniquerandom",
    "filluniquerandomdeterministic",
    "deleteseq",
    "readtocache",
    "readrandomfast",
    "multireadrandom",
    "newiterator",
    "newiteratorwhilewriting",
    "readwhilemerging",
    "readwhilescanning",
    "updaterandom",
    "appendrandom",
    "mergerandom",
    "mixgraph",
    "compact0",
    "compact1",
    "compactall",
    "crc32c",
    "xxhash",
    "compress",
    "uncompress",
    "memstats",
    "resetstats",
    "timeseries",
];
