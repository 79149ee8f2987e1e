//! db_bench's flags: names, defaults (RocksDB 7.8's `tools/db_bench_tool.cc`) and gflags syntax.
//!
//! Accepted forms, as gflags accepts them: `--name=value`, `-name=value`, `--name value` (not for
//! booleans), and for booleans `--name`, `--noname`, `--name=true|false|1|0|yes|no|t|f|y|n`.
//! A db_bench flag lsmlab does not implement yet is refused by name; an unknown flag gets the
//! closest known name.

use super::compat;
use crate::error::{CliError, CliResult};
use crate::suggest::closest;
use lsmlab::filter::{FilterKind, FilterOptions};
use lsmlab::{Compression, Options, WriteOptions};
use serde::Serialize;

/// A type a flag can hold: how to parse it and what to say when the text is wrong.
pub trait FlagValue: Sized {
    /// True for booleans (which take `--name` and `--noname`).
    const IS_BOOL: bool = false;
    /// Parses `raw` for flag `name`; the error names the flag and what is allowed.
    fn parse_flag(name: &str, raw: &str) -> CliResult<Self>;
}

fn bad(name: &str, raw: &str, allowed: &str) -> CliError {
    CliError::new(format!("--{name}: invalid value {raw:?}: {allowed}"))
}

impl FlagValue for bool {
    const IS_BOOL: bool = true;
    fn parse_flag(name: &str, raw: &str) -> CliResult<bool> {
        match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "t" | "y" => Ok(true),
            "false" | "0" | "no" | "f" | "n" => Ok(false),
            _ => Err(bad(name, raw, "expected true/false/1/0/yes/no")),
        }
    }
}

macro_rules! int_flag {
    ($t:ty, $what:expr) => {
        impl FlagValue for $t {
            fn parse_flag(name: &str, raw: &str) -> CliResult<$t> {
                let s = raw.strip_prefix('+').unwrap_or(raw);
                s.parse::<$t>().map_err(|_| bad(name, raw, $what))
            }
        }
    };
}
int_flag!(i64, "expected an integer");
int_flag!(i32, "expected a 32-bit integer");
int_flag!(u64, "expected a non-negative integer");
int_flag!(usize, "expected a non-negative integer");
int_flag!(u32, "expected a non-negative 32-bit integer");

impl FlagValue for f64 {
    fn parse_flag(name: &str, raw: &str) -> CliResult<f64> {
        match raw.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            _ => Err(bad(name, raw, "expected a number")),
        }
    }
}

impl FlagValue for String {
    fn parse_flag(_name: &str, raw: &str) -> CliResult<String> {
        Ok(raw.to_string())
    }
}

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

            fn is_bool(name: &str) -> bool {
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
    /// Bytes of user data per data block.
    block_size: usize = 4096;
    /// Bytes of block cache; 0 or negative disables it.
    cache_size: i64 = 8 << 20;
    /// Bytes a memtable gathers before it is flushed.
    write_buffer_size: usize = 64 << 20;
    /// Memtables (active plus immutable) before writes stop.
    max_write_buffer_number: usize = 2;
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
    /// Block compression: none, lz4, zstd (lsmlab's default is none; db_bench's is snappy,
    /// which lsmlab does not implement).
    compression_type: String = "none".to_string();
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
    /// Compression of each value in a blob file: none, lz4, zstd.
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
    /// seekrandom: position with SeekForPrev and step with Prev instead of Seek and Next.
    reverse_iterator: bool = false;
    /// Levels below this one are written uncompressed; -1: every level uses
    /// --compression_type (a flush writes level 0).
    min_level_to_compress: i32 = -1;
    /// 0: leveled compaction, the only style lsmlab implements (universal 1 and FIFO 2 are
    /// refused).
    compaction_style: i32 = 0;
    /// Size the levels from the last one up (RocksDB's dynamic level bytes): the last level
    /// holds most data, each level above it a multiplier less, and levels that would be
    /// smaller than --max_bytes_for_level_base stay empty.
    level_compaction_dynamic_level_bytes: bool = false;
    /// lsmlab: seed 003's engines: leveldb (leveled, values in tables), wisckey (leveled, every
    /// value in blob files), fslsm (blob files, float-up and stretch). Sets --enable_blob_files
    /// and --min_blob_size=0 for wisckey and fslsm, overriding those flags; fslsm-nostretch and
    /// fslsm-nofloat: fslsm with stretch or float-up off. Empty: leveled, separation as the
    /// blob flags say.
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
    /// lsmlab: the engine the benchmarks run on: lsmlab (this program's), rocksdb or leveldb
    /// (the libraries, when built with the cargo features of the same names; docs/engines.md).
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
    "optimize_filters_for_hits",
    "wal_bytes_per_sync",
    "benchmark_read_rate_limit",
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

/// Turns the engine's `Invalid argument: name = value: allowed` into a flag error; the engine's
/// option names are db_bench's flag names.
fn engine_option_error(msg: &str) -> CliError {
    let body = msg.strip_prefix("Invalid argument: ").unwrap_or(msg);
    if let Some((name, rest)) = body.split_once(" = ") {
        if let Some((value, allowed)) = rest.split_once(": ") {
            if SUPPORTED.contains(&name) {
                return CliError::new(format!("--{name}: invalid value {value}: {allowed}"));
            }
        }
    }
    CliError::new(format!("the engine rejected the options: {msg}"))
}

/// What the command line asked for.
#[derive(Debug, Clone)]
pub enum Parsed {
    /// Run with these flags.
    Run {
        /// Every flag, set or default.
        flags: Box<BenchFlags>,
        /// Names of the flags the command line set, in order.
        explicit: Vec<String>,
        /// One line per flag accepted without effect, to print before running.
        notes: Vec<String>,
    },
    /// `--help` was given.
    Help,
}

/// Parses db_bench-style arguments, then checks the values against each other.
pub fn parse(args: &[String]) -> CliResult<Parsed> {
    let args = expand_flagfiles(args, 0)?;
    let args = &args[..];
    // As gflags: `--undefok` applies to the whole command line, wherever it stands.
    let undefok: Vec<String> = args
        .iter()
        .filter_map(|a| {
            a.strip_prefix("--undefok=")
                .or_else(|| a.strip_prefix("-undefok="))
        })
        .flat_map(|l| l.split(',').map(|n| n.trim().to_string()))
        .filter(|n| !n.is_empty())
        .collect();
    let mut flags = BenchFlags::default();
    let mut set = Vec::new();
    let mut notes = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let body = arg
            .strip_prefix("--")
            .or_else(|| arg.strip_prefix('-'))
            .filter(|b| !b.is_empty())
            .ok_or_else(|| {
                CliError::new(format!(
                    "unexpected argument {arg:?}: flags look like --name=value"
                ))
            })?;
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        if name == "help" || name == "h" {
            return Ok(Parsed::Help);
        }
        if SUPPORTED.contains(&name) {
            let raw = match value {
                Some(v) => v,
                None if BenchFlags::is_bool(name) => "true".to_string(),
                None => {
                    let next = args
                        .get(i)
                        .filter(|n| !n.starts_with("--"))
                        .ok_or_else(|| {
                            CliError::new(format!("--{name}: missing value (use --{name}=VALUE)"))
                        })?;
                    i += 1;
                    next.clone()
                }
            };
            flags.set_raw(name, &raw)?;
            set.push(name.to_string());
            continue;
        }
        if let Some(base) = name.strip_prefix("no") {
            if SUPPORTED.contains(&base) && BenchFlags::is_bool(base) && value.is_none() {
                flags.set_raw(base, "false")?;
                set.push(base.to_string());
                continue;
            }
        }
        if name == "undefok" {
            continue;
        }
        if let Some(f) = compat::find(name) {
            let raw = value.unwrap_or_else(|| "true".to_string());
            notes.push(compat::check(f, &raw).map_err(CliError::new)?);
            continue;
        }
        if REFUSED.contains(&name) {
            return Err(CliError::new(format!(
                "--{name}: a db_bench flag lsmlab does not support yet; remove it (see `lsmlab bench --help`)"
            )));
        }
        if undefok.iter().any(|n| n == name) {
            continue;
        }
        let candidates = SUPPORTED.iter().chain(REFUSED.iter()).copied();
        let hint = closest(name, candidates)
            .map(|c| format!("; did you mean --{c}?"))
            .unwrap_or_default();
        return Err(CliError::new(format!("unknown flag --{name}{hint}")));
    }
    // An explicit empty --db would open the working directory as a database.
    if flags.db.is_empty() && set.iter().any(|n| n == "db") {
        return Err(CliError::new(
            "--db: empty; give a directory, or leave --db out for db_bench's default under /tmp",
        ));
    }
    flags.validate()?;
    let engine = flags.engine_kind()?;
    crate::engine::check_flags(engine, &flags, &set, "--")?;
    if engine != crate::engine::EngineKind::Lsmlab {
        // The libraries are not given these either: their own defaults stand.
        for n in &mut notes {
            n.push_str(&format!(
                " (and none on --engine={}: the library's default stands)",
                engine.name()
            ));
        }
    }
    Ok(Parsed::Run {
        flags: Box::new(flags),
        explicit: set,
        notes,
    })
}

/// gflags nests flag files at most this deep (a file naming itself would recurse forever).
const MAX_FLAGFILE_DEPTH: usize = 8;

/// Replaces every `--flagfile=PATH` by the flags in PATH: one per line, `#` starts a comment
/// line, blank lines are skipped (gflags' format).
fn expand_flagfiles(args: &[String], depth: usize) -> CliResult<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    for a in args {
        let Some(path) = a
            .strip_prefix("--flagfile=")
            .or_else(|| a.strip_prefix("-flagfile="))
        else {
            out.push(a.clone());
            continue;
        };
        if depth >= MAX_FLAGFILE_DEPTH {
            return Err(CliError::new(format!(
                "--flagfile={path}: flag files nested deeper than {MAX_FLAGFILE_DEPTH}"
            )));
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::new(format!("--flagfile={path}: cannot read: {e}")))?;
        let inner: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        out.extend(expand_flagfiles(&inner, depth + 1)?);
    }
    Ok(out)
}

impl BenchFlags {
    /// The benchmark names of `--benchmarks`, checked.
    pub fn benchmark_list(&self) -> CliResult<Vec<String>> {
        let mut out = Vec::new();
        for name in self.benchmarks.split(',').map(str::trim) {
            if name.is_empty() {
                continue;
            }
            if BENCHMARKS.contains(&name) {
                out.push(name.to_string());
            } else if REFUSED_BENCHMARKS.contains(&name) {
                return Err(CliError::new(format!(
                    "--benchmarks: {name:?} is a db_bench benchmark lsmlab does not support yet; supported: {}",
                    BENCHMARKS.join(",")
                )));
            } else {
                let hint = closest(name, BENCHMARKS.iter().copied())
                    .map(|c| format!("; did you mean {c}?"))
                    .unwrap_or_default();
                return Err(CliError::new(format!(
                    "--benchmarks: unknown benchmark {name:?}{hint}"
                )));
            }
        }
        Ok(out)
    }

    /// The compression of `--compression_type`.
    pub fn compression(&self) -> CliResult<Compression> {
        Compression::parse(&self.compression_type).map_err(|_| {
            CliError::new(format!(
                "--compression_type: invalid value {:?}: allowed none, lz4, zstd (lsmlab has no snappy, zlib, bzip2)",
                self.compression_type
            ))
        })
    }

    /// The compression of `--blob_compression_type`.
    pub fn blob_compression(&self) -> CliResult<Compression> {
        Compression::parse(&self.blob_compression_type).map_err(|_| {
            CliError::new(format!(
                "--blob_compression_type: invalid value {:?}: allowed none, lz4, zstd (lsmlab has no snappy, zlib, bzip2)",
                self.blob_compression_type
            ))
        })
    }

    /// The engine of `--engine`.
    pub fn engine_kind(&self) -> CliResult<crate::engine::EngineKind> {
        crate::engine::EngineKind::parse("--engine", &self.engine)
    }

    /// Checks every value and the values against each other.
    pub fn validate(&self) -> CliResult<()> {
        self.engine_kind()?;
        self.benchmark_list()?;
        self.compression()?;
        super::layout::check(self)?;
        let check = |ok: bool, name: &str, value: String, allowed: &str| {
            if ok {
                Ok(())
            } else {
                Err(CliError::new(format!(
                    "--{name}: invalid value {value}: {allowed}"
                )))
            }
        };
        check(
            self.num >= 1,
            "num",
            self.num.to_string(),
            "must be at least 1",
        )?;
        check(
            self.key_size >= 1 && self.key_size <= 1 << 20,
            "key_size",
            self.key_size.to_string(),
            "must be in 1..=1048576",
        )?;
        check(
            self.value_size <= 64 << 20,
            "value_size",
            self.value_size.to_string(),
            "must be at most 67108864",
        )?;
        check(
            self.compression_ratio > 0.0 && self.compression_ratio <= 1.0,
            "compression_ratio",
            self.compression_ratio.to_string(),
            "must be in (0, 1]",
        )?;
        check(
            (1..=1024).contains(&self.threads),
            "threads",
            self.threads.to_string(),
            "must be in 1..=1024",
        )?;
        check(
            self.readwritepercent <= 100,
            "readwritepercent",
            self.readwritepercent.to_string(),
            "must be in 0..=100",
        )?;
        check(
            self.bloom_bits <= 100.0,
            "bloom_bits",
            self.bloom_bits.to_string(),
            "must be at most 100 (negative or 0: no filter)",
        )?;
        check(
            self.batch_size >= 1,
            "batch_size",
            self.batch_size.to_string(),
            "must be at least 1",
        )?;
        self.blob_compression()?;
        check(
            self.compaction_style == 0,
            "compaction_style",
            self.compaction_style.to_string(),
            "lsmlab implements leveled compaction (0) only; universal (1) and FIFO (2) are not implemented",
        )?;
        check(
            self.min_level_to_compress >= -1 && self.min_level_to_compress < self.num_levels as i32,
            "min_level_to_compress",
            self.min_level_to_compress.to_string(),
            "must be -1 (every level compressed) or a level below --num_levels",
        )?;
        check(
            !(self.sync && self.disable_wal),
            "sync",
            "true".into(),
            "cannot be combined with --disable_wal",
        )?;
        self.options()
            .validate()
            .map_err(|e| engine_option_error(&e.to_string()))
    }

    /// The engine's options these flags describe.
    pub fn options(&self) -> Options {
        let mut o = Options {
            write_buffer_size: self.write_buffer_size,
            max_write_buffer_number: self.max_write_buffer_number,
            level0_file_num_compaction_trigger: self.level0_file_num_compaction_trigger,
            level0_slowdown_writes_trigger: self.level0_slowdown_writes_trigger,
            level0_stop_writes_trigger: self.level0_stop_writes_trigger,
            delayed_write_rate: self.delayed_write_rate,
            bytes_per_sync: self.bytes_per_sync,
            allow_mmap_reads: self.mmap_read,
            max_bytes_for_level_base: self.max_bytes_for_level_base,
            max_bytes_for_level_multiplier: self.max_bytes_for_level_multiplier,
            level_compaction_dynamic_level_bytes: self.level_compaction_dynamic_level_bytes,
            target_file_size_base: self.target_file_size_base,
            num_levels: self.num_levels,
            max_background_jobs: self.max_background_jobs,
            block_size: self.block_size,
            block_restart_interval: self.block_restart_interval,
            compression: self.compression().unwrap_or_default(),
            compression_per_level: match usize::try_from(self.min_level_to_compress) {
                // As db_bench: levels below the minimum uncompressed, the rest as asked.
                Ok(min) => (0..self.num_levels)
                    .map(|l| {
                        if l < min {
                            Compression::None
                        } else {
                            self.compression().unwrap_or_default()
                        }
                    })
                    .collect(),
                Err(_) => Vec::new(),
            },
            wal_dir: (!self.wal_dir.is_empty()).then(|| self.wal_dir.clone().into()),
            block_cache_size: self.cache_size.max(0) as usize,
            filter: FilterOptions {
                bits_per_key: self.bloom_bits.max(0.0),
                kind: if self.use_ribbon_filter {
                    FilterKind::Ribbon
                } else {
                    FilterKind::Bloom
                },
                bloom_before_level: self.bloom_before_level,
            },
            statistics: self.statistics,
            disable_auto_compactions: self.disable_auto_compactions,
            enable_blob_files: self.enable_blob_files,
            min_blob_size: self.min_blob_size,
            blob_file_size: self.blob_file_size,
            blob_compression_type: self.blob_compression().unwrap_or_default(),
            enable_blob_garbage_collection: self.enable_blob_garbage_collection,
            blob_garbage_collection_age_cutoff: self.blob_garbage_collection_age_cutoff,
            blob_garbage_collection_force_threshold: self.blob_garbage_collection_force_threshold,
            max_files_for_level_base: self.max_files_for_level_base,
            deterministic_background: self.deterministic_background,
            ..Options::default()
        };
        super::layout::apply(self, &mut o);
        o
    }

    /// The options of every write.
    pub fn write_options(&self) -> WriteOptions {
        WriteOptions {
            sync: self.sync,
            disable_wal: self.disable_wal,
        }
    }

    /// The database directory: `--db`, or db_bench's default under /tmp.
    pub fn db_path(&self) -> String {
        if self.db.is_empty() {
            // SAFETY: getuid has no preconditions and cannot fail.
            let uid = unsafe { libc::getuid() };
            format!("/tmp/lsmlabtest-{uid}/dbbench")
        } else {
            self.db.clone()
        }
    }

    /// Reads per thread (`--reads`, or `--num` when negative).
    pub fn reads_per_thread(&self) -> u64 {
        u64::try_from(self.reads).unwrap_or(self.num)
    }

    /// Writes per thread (`--writes`, or `--num` when negative).
    pub fn writes_per_thread(&self) -> u64 {
        u64::try_from(self.writes).unwrap_or(self.num)
    }

    /// Deletes per thread (`--deletes`, or `--num` when negative).
    pub fn deletes_per_thread(&self) -> u64 {
        u64::try_from(self.deletes).unwrap_or(self.num)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn run(a: &[&str]) -> CliResult<BenchFlags> {
        match parse(&args(a))? {
            Parsed::Run { flags, .. } => Ok(*flags),
            Parsed::Help => Err(CliError::new("help")),
        }
    }

    #[test]
    fn defaults_are_db_bench_7_8() {
        let f = BenchFlags::default();
        assert_eq!(f.num, 1_000_000);
        assert_eq!(f.key_size, 16);
        assert_eq!(f.value_size, 100);
        assert_eq!(f.compression_ratio, 0.5);
        assert_eq!(f.cache_size, 8 << 20);
        assert_eq!(f.bloom_bits, -1.0);
        assert_eq!(f.threads, 1);
        assert_eq!(f.write_buffer_size, 64 << 20);
        assert_eq!(f.readwritepercent, 90);
        assert_eq!(f.reads_per_thread(), 1_000_000);
        assert_eq!(f.options().filter.bits_per_key, 0.0);
    }

    #[test]
    fn all_value_syntaxes_parse() {
        let f = run(&[
            "--num=500",
            "--value_size",
            "1024",
            "-key_size=32",
            "--statistics",
            "--histogram=1",
            "--use_ribbon_filter=true",
            "--bloom_bits=10",
            "--compression_type=none",
        ])
        .unwrap();
        assert_eq!(f.num, 500);
        assert_eq!(f.value_size, 1024);
        assert_eq!(f.key_size, 32);
        assert!(f.statistics && f.histogram && f.use_ribbon_filter);
        assert_eq!(f.options().filter.kind, FilterKind::Ribbon);
        assert_eq!(f.options().filter.bits_per_key, 10.0);
        assert_eq!(f.options().filter.bloom_before_level, 0);
        let f = run(&[
            "--use_ribbon_filter",
            "--bloom_bits=7.5",
            "--bloom_before_level=-1",
        ])
        .unwrap();
        assert_eq!(f.options().filter.bloom_before_level, -1);
        assert_eq!(f.options().filter.bits_per_key, 7.5);
    }

    #[test]
    fn booleans_take_gflags_forms() {
        assert!(!run(&["--statistics=false"]).unwrap().statistics);
        assert!(run(&["--statistics=1"]).unwrap().statistics);
        assert!(!run(&["--statistics", "--nostatistics"]).unwrap().statistics);
        assert!(run(&["--use_existing_db=0"])
            .map(|f| !f.use_existing_db)
            .unwrap());
    }

    #[test]
    fn unknown_flag_suggests_the_closest_name() {
        let e = run(&["--bloom_bit=10"]).unwrap_err().0;
        assert_eq!(e, "unknown flag --bloom_bit; did you mean --bloom_bits?");
        let e = run(&["--valuesize=10"]).unwrap_err().0;
        assert!(e.contains("did you mean --value_size?"), "{e}");
    }

    #[test]
    fn unsupported_flags_are_refused_by_name() {
        let e = run(&["--use_direct_reads=true"]).unwrap_err().0;
        assert!(e.starts_with("--use_direct_reads: a db_bench flag lsmlab does not support"));
        let e = run(&["--use_blob_cache=true"]).unwrap_err().0;
        assert!(e.starts_with("--use_blob_cache: a db_bench flag lsmlab does not support"));
    }

    #[test]
    fn blob_flags_reach_the_options_and_bad_values_name_the_flag() {
        let f = run(&[
            "--enable_blob_files=true",
            "--min_blob_size=4096",
            "--blob_file_size=1048576",
            "--blob_compression_type=lz4",
            "--enable_blob_garbage_collection=true",
            "--blob_garbage_collection_age_cutoff=0.5",
            "--blob_garbage_collection_force_threshold=0.8",
        ])
        .unwrap();
        let o = f.options();
        assert!(o.enable_blob_files && o.enable_blob_garbage_collection);
        assert_eq!((o.min_blob_size, o.blob_file_size), (4096, 1 << 20));
        assert_eq!(o.blob_compression_type, Compression::Lz4);
        assert_eq!(o.blob_garbage_collection_age_cutoff, 0.5);
        assert_eq!(o.blob_garbage_collection_force_threshold, 0.8);
        // db_bench's defaults.
        let d = BenchFlags::default().options();
        assert!(!d.enable_blob_files && !d.enable_blob_garbage_collection);
        assert_eq!((d.min_blob_size, d.blob_file_size), (0, 256 << 20));
        assert_eq!(d.blob_garbage_collection_age_cutoff, 0.25);
        assert_eq!(d.blob_garbage_collection_force_threshold, 1.0);
        let e = run(&["--blob_compression_type=snappy"]).unwrap_err().0;
        assert!(e.starts_with("--blob_compression_type") && e.contains("none, lz4, zstd"));
        let e = run(&["--blob_garbage_collection_age_cutoff=2"])
            .unwrap_err()
            .0;
        assert!(
            e.starts_with("--blob_garbage_collection_age_cutoff: invalid value 2"),
            "{e}"
        );
        let e = run(&["--blob_file_size=10"]).unwrap_err().0;
        assert!(e.starts_with("--blob_file_size: invalid value 10"), "{e}");
    }

    #[test]
    fn bad_values_name_the_flag_and_what_is_allowed() {
        let e = run(&["--num=abc"]).unwrap_err().0;
        assert_eq!(
            e,
            "--num: invalid value \"abc\": expected a non-negative integer"
        );
        let e = run(&["--statistics=maybe"]).unwrap_err().0;
        assert!(
            e.contains("--statistics") && e.contains("true/false"),
            "{e}"
        );
        let e = run(&["--readwritepercent=101"]).unwrap_err().0;
        assert!(
            e.starts_with("--readwritepercent: invalid value 101"),
            "{e}"
        );
        let e = run(&["--compression_type=snappy"]).unwrap_err().0;
        assert!(e.starts_with("--compression_type") && e.contains("none, lz4, zstd"));
        let e = run(&["--write_buffer_size=10"]).unwrap_err().0;
        assert_eq!(
            e,
            "--write_buffer_size: invalid value 10: must be at least 4096 bytes"
        );
        let e = run(&["--threads"]).unwrap_err().0;
        assert!(e.starts_with("--threads: missing value"), "{e}");
        let e = run(&["num=5"]).unwrap_err().0;
        assert!(e.contains("flags look like --name=value"), "{e}");
    }

    #[test]
    fn benchmarks_are_checked_by_name() {
        let e = run(&["--benchmarks=fillrandom,readrandm"]).unwrap_err().0;
        assert!(e.contains("did you mean readrandom?"), "{e}");
        let e = run(&["--benchmarks=mixgraph"]).unwrap_err().0;
        assert!(e.contains("does not support yet"), "{e}");
        let f = run(&["--benchmarks=fillseq,,stats"]).unwrap();
        assert_eq!(f.benchmark_list().unwrap(), vec!["fillseq", "stats"]);
    }
}
