//! Options: what each knob does, its default, and when to change it.
//!
//! Names and defaults follow RocksDB's where RocksDB has the knob (and `db_bench`'s flag of the
//! same name sets it), so a study's settings carry over unchanged.

pub(crate) mod compression;
mod layout;
mod shape;
mod universal;

pub use compression::Compression;
pub use layout::{
    parse_increments, CompactionVictims, FloatTarget, FslsmOptions, Layout, LAYOUT_PRESETS,
};
pub use shape::{SHAPES, SHAPE_FLAGS};
pub use universal::{StopStyle, UniversalOptions};

use crate::env::{FileSystem, PosixFs};
use crate::error::{Error, Result};
use crate::filter::FilterOptions;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What recovery does with a WAL that is damaged or ends in an incomplete record
/// (RocksDB's `WALRecoveryMode`, same names and numbers).
///
/// A crash leaves only one kind of trace in a WAL: its unsynced end missing, cut short or
/// (after a power cut) partly zeros — a *torn tail*. Anything else — a bad record with valid
/// records after it — is *damage*: the file was written whole and changed afterwards.
/// Every record recovery does not replay is counted (`lsmlab.recovery.dropped-records`) and
/// written to the `LOG`; a WAL holding such records, or damage, is moved to `lost/` in the
/// database directory instead of being deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WalRecoveryMode {
    /// 0: a torn tail is recovered up to its last whole record; damage fails the open.
    TolerateCorruptedTailRecords,
    /// 1: a torn tail or damage fails the open: for when every write was synced and any
    /// loss must be known.
    AbsoluteConsistency,
    /// 2 (default): replay stops at a torn tail or at a gap in the sequence numbers (an older
    /// WAL lost unsynced records), so the database is the state after a prefix of the writes;
    /// what follows is dropped. Damage fails the open under `paranoid_checks`, else it stops
    /// replay too.
    #[default]
    PointInTimeRecovery,
    /// 3: damaged records are skipped and replay goes on with the next intact one: salvage
    /// after damage, at the price of a state no prefix of the writes ever had.
    SkipAnyCorruptedRecords,
}

impl WalRecoveryMode {
    /// RocksDB's number for the mode (`0`..=`3`), as db_bench's `--wal_recovery_mode` takes it.
    pub fn from_number(n: u64) -> Result<WalRecoveryMode> {
        Ok(match n {
            0 => WalRecoveryMode::TolerateCorruptedTailRecords,
            1 => WalRecoveryMode::AbsoluteConsistency,
            2 => WalRecoveryMode::PointInTimeRecovery,
            3 => WalRecoveryMode::SkipAnyCorruptedRecords,
            _ => {
                return Err(invalid(
                    "wal_recovery_mode",
                    n,
                    "allowed: 0 (tolerate corrupted tail records), 1 (absolute consistency), \
                     2 (point in time), 3 (skip any corrupted records)",
                ))
            }
        })
    }
}

/// Options of a database, fixed at open.
///
/// Grouped, as LevelDB's `options.h` groups them, by what they affect: what the database does
/// (behaviour), then what it costs along each path — writes, compaction, tables and reads,
/// filters, blob files — then the layout policy and what is recorded.
#[derive(Clone)]
pub struct Options {
    // Parameters that affect behaviour.
    /// Create the database if the directory holds none. Turn it off where a missing database
    /// is an error (a path typed wrong would otherwise start an empty one). Default: true.
    pub create_if_missing: bool,
    /// Refuse to open an existing database: for a tool that must start from nothing (a
    /// benchmark's fresh load). Default: false.
    pub error_if_exists: bool,
    /// Treat damage found at recovery as fatal instead of recovering what is intact (see
    /// [`WalRecoveryMode`]): turn off only to salvage a damaged database. A torn WAL tail
    /// (the trace of a crash) is tolerated either way. Default: true.
    pub paranoid_checks: bool,
    /// What recovery does with a damaged or torn WAL. Change it to `AbsoluteConsistency` when
    /// every write is synced and any loss must stop the open, or to `SkipAnyCorruptedRecords`
    /// to salvage a damaged database. Default: point-in-time (RocksDB's).
    pub wal_recovery_mode: WalRecoveryMode,
    /// The file system. Change it for tests (in memory, fault injection) or to count and
    /// shape I/O with a wrapper ([`crate::env::FileSystemWrapper`]). Default: the operating
    /// system's.
    pub fs: Arc<dyn FileSystem>,

    // The write path: memtables, the WAL, and when writers are slowed or stopped.
    /// Bytes of writes a memtable gathers before it is frozen and flushed to a level-0 table.
    /// Larger: fewer, larger L0 files and less write amplification, more memory and a longer
    /// recovery. Default: 64 MiB (RocksDB).
    pub write_buffer_size: usize,
    /// Memtables (the active one plus those waiting for flush) before writes stop to wait for a
    /// flush. Raise it (3–4) when write bursts stall on a slow flush and memory allows one more
    /// write buffer each. Default: 2.
    pub max_write_buffer_number: usize,
    /// Bytes all memtables together (the active one and those waiting for flush) should hold,
    /// as RocksDB's `db_write_buffer_size` and its write buffer manager: the active memtable is
    /// switched for a flush once it passes 7/8 of it, or once all of them reach it and the
    /// active one holds half. It never stops a writer (RocksDB's `allow_stall = false`); the
    /// count of memtables still does. Set it to hold the database to a memory budget below
    /// `write_buffer_size` × `max_write_buffer_number`. Default: 0, no budget.
    pub db_write_buffer_size: usize,
    /// Directory of the write-ahead logs, when not the database directory: put them on
    /// another device so that WAL appends do not queue behind flushes and compactions. The
    /// directory is created at open; `Db::destroy` with the same options removes the WALs in it.
    /// Default: none, the database directory (RocksDB's `wal_dir`).
    pub wal_dir: Option<PathBuf>,
    /// Tables and blob files ask the operating system to start writing back every this many
    /// bytes written (Linux `sync_file_range`), instead of leaving all of it to the fsync that
    /// ends each flush and compaction: the device works while the file is still being
    /// written, and the final fsync waits on less. The WAL is never hinted (its writer would
    /// pay the system call). 0 turns it off, but for a flush's table, which is hinted every
    /// MiB all the same (writers wait on flushes). Default: 0 (RocksDB). RocksDB's tuning guide
    /// suggests 1 MiB; at 1 MiB lsmlab's fill was 18 % faster with 1 KB values and 14–25 %
    /// with 16 KB values on this project's test machine (docs/performance.md).
    pub bytes_per_sync: u64,
    /// Level-0 files at which each write is delayed to let compaction catch up. Keep it well
    /// above the compaction trigger; raise it with the trigger, or for write bursts that
    /// compaction absorbs later. Default: 20.
    pub level0_slowdown_writes_trigger: usize,
    /// Level-0 files at which writes stop until compaction brings the count down. Raise it
    /// with the slowdown trigger; lower it to bound the tables a get may check. Default: 36.
    pub level0_stop_writes_trigger: usize,
    /// The slowest write rate, in bytes per second, while level 0 holds at least
    /// `level0_slowdown_writes_trigger` files (or the compaction debt passes its soft limit):
    /// writers are delayed so that compaction can catch up without a full stop. The pace
    /// starts at the rate writes came in before the slowdown, is cut by a fifth each time the
    /// pressure rises and raised by a quarter when it falls, never below this rate (RocksDB
    /// starts at this rate and never goes above it; docs/architecture.md, "Write stalls").
    /// Lower it on a slow device, where compaction drains level 0 slower than 16 MiB/s.
    /// Default: 16 MiB/s (RocksDB's `delayed_write_rate`).
    pub delayed_write_rate: u64,
    /// Estimated bytes compaction still has to rewrite at which writes slow down to
    /// `delayed_write_rate`. Lower it on a small device, where 64 GiB of debt would fill it.
    /// Default: 64 GiB (RocksDB).
    pub soft_pending_compaction_bytes_limit: u64,
    /// Estimated bytes compaction still has to rewrite at which writes stop. Lower it with the
    /// soft limit, above it. Default: 256 GiB.
    pub hard_pending_compaction_bytes_limit: u64,

    // Compaction and the shape of the tree.
    /// Number of levels, including level 0. Raise it only for databases larger than the
    /// levels can hold at the multiplier (the last level grows past its target otherwise).
    /// Default: 7.
    pub num_levels: usize,
    /// Level-0 files that trigger a compaction into level 1. Lower: fewer tables for a get to
    /// check in level 0 (reads), more often rewriting level 1 (writes); higher the reverse.
    /// Default: 4.
    pub level0_file_num_compaction_trigger: usize,
    /// Target size of level 1 in bytes; level n+1 targets `multiplier` times level n. Keep it
    /// near level 0's size at its trigger (`write_buffer_size` × trigger), so that a level-0
    /// compaction does not rewrite a level 1 much larger than its input; scale it with the
    /// write buffer when a study shrinks the tree. Default: 256 MiB.
    pub max_bytes_for_level_base: u64,
    /// Growth factor between level targets. Larger: fewer levels and fewer tables per get, more
    /// rewriting per byte (write amplification grows about linearly with it). Default: 10.
    pub max_bytes_for_level_multiplier: f64,
    /// Size the levels from the last one up instead of from level 1 down
    /// (`compaction/dynamic_levels.rs`): the last level holds most of the data at any database
    /// size, and level 0 compacts into the first level that needs data. Turn it on for a
    /// database that grows and shrinks, or to compare with RocksDB ≥ 8.4, whose `Options`
    /// default it is. Default: false (db_bench's flag default, and LevelDB's shape).
    pub level_compaction_dynamic_level_bytes: bool,
    /// When not 0, level limits count tables instead of bytes: level i ≥ 1 holds at most
    /// `max_files_for_level_base · max_bytes_for_level_multiplier^(i − 1)` tables (with 10 and
    /// 10: 10, 100, 1000, …; level 0 keeps `level0_file_num_compaction_trigger`), and
    /// `max_bytes_for_level_base` is not used. Set it to run the shape of a study that counts
    /// files (LevelDB's simulator, seed 003); not with `level_compaction_dynamic_level_bytes`.
    /// Default: 0 (limits in bytes, RocksDB).
    pub max_files_for_level_base: u64,
    /// Leveled: once the versions that upper tables hide in the levels below them are
    /// estimated at more than this percent of the live data, a table hiding the most is
    /// compacted down, though its level is under its target (`compaction/obsolete.rs`). Without
    /// it an overwrite that leaves a level under its target keeps two copies of its keys for
    /// good. Lower: less space, more rewriting in overwrite workloads; 0 turns it off (RocksDB,
    /// which has no such trigger). The estimate samples the filters below, so tables without a
    /// filter count nothing. Not used by the FSLSM and universal layouts. Default: 5.
    pub max_obsolete_percent: u32,
    /// Size at which compaction output is cut into a new table. Smaller tables make finer
    /// compactions (less rewritten per compaction) at more files, index and filter blocks;
    /// scale it with the write buffer when a study shrinks the tree. Default: 64 MiB.
    pub target_file_size_base: u64,
    /// Which tables a level at or over its limit compacts: see [`CompactionVictims`]. Change it
    /// to keep hot tables high (reads stop at them sooner), at the price of compacting tables
    /// that may overlap the next level more. Default: `MinOverlap` (RocksDB).
    pub compaction_victims: CompactionVictims,
    /// Threads for flushes and compactions together: one flushes, the others compact (at least
    /// one). More threads help when compactions of different levels could run at once and the
    /// machine has cores to spare. Default: 2.
    pub max_background_jobs: usize,
    /// Never compact automatically (flushes still happen): for a bulk load compacted once at
    /// the end, or to hold a tree's shape while it is measured. Default: false.
    pub disable_auto_compactions: bool,
    /// Do flushes and compactions (and float-ups) in the thread that asked for them, at fixed
    /// points — after each write, after a get that asked for a float-up, and where the engine
    /// would otherwise wait for background work — instead of in background threads. A repeat of
    /// the same single-threaded workload then repeats every counted figure exactly (files
    /// checked, float-ups, amplification), which timing makes vary up to 2× between repeats of
    /// concurrent runs. Writers are never slowed or stopped (they do the work themselves), and
    /// a write that fills the memtable pays for its flush and compactions. For studies of
    /// counted figures, not for throughput. Default: false (background threads, RocksDB).
    pub deterministic_background: bool,

    // Tables and the read path.
    /// Uncompressed bytes of user data per data block. Smaller blocks read less per get and
    /// cost a larger index. Default: 4096.
    pub block_size: usize,
    /// Keys between restart points in a data block (prefix compression restarts there).
    /// Lower: faster seeks inside a block, less prefix compression; raise it for long shared
    /// key prefixes. Default: 16.
    pub block_restart_interval: usize,
    /// Compression of table blocks. Choose LZ4 when values compress and the CPU has room
    /// (less I/O and space), zstd when space matters more than CPU. Default: none.
    pub compression: Compression,
    /// Compression of each level's tables, overriding `compression`: level `l` (a flush writes
    /// level 0) uses entry `min(l, len − 1)`. Empty means `compression` everywhere. Use it to
    /// leave the levels that are rewritten soonest uncompressed (db_bench's
    /// `--min_level_to_compress`). Default: empty (RocksDB).
    pub compression_per_level: Vec<Compression>,
    /// Capacity of the block cache in bytes; 0 disables it. Raise it to what the working set
    /// of data blocks needs when reads repeat (the operating system's page cache serves the
    /// rest, at the price of a copy and a checksum per read); 0 for a study whose model has no
    /// cache. Default: 8 MiB (RocksDB 7.8).
    pub block_cache_size: usize,
    /// Read tables and blob files through a memory map instead of `pread`: an uncompressed
    /// data block is checked and searched in place, without a system call or a copy (and so
    /// never enters the block cache); compressed blocks and blob records are copied out of the
    /// map. Worth it when the data fits in memory and reads are many and small; a file system
    /// without maps reads as usual. LevelDB reads this way by default. Default: false
    /// (RocksDB's `allow_mmap_reads`).
    pub allow_mmap_reads: bool,

    // Filters.
    /// The filter built for every table. Set 10 bits per key (Bloom, or Ribbon for about 30 %
    /// less filter memory at more build CPU) whenever gets look for keys that tables lack;
    /// leave it off for scans only. Per level: `optimize_filters_for_hits` (none on the last
    /// level), `bits_per_key_per_level` and Monkey's `allocation` (see [`FilterOptions`]).
    /// Default: none (bits per key 0), as RocksDB.
    pub filter: FilterOptions,

    // Blob files (key-value separation).
    /// Key-value separation: flush and compaction write values of at least `min_blob_size`
    /// bytes to blob files and keep only a small blob index in the tables, so compaction
    /// rewrites keys, not values. Pays off for large values (seed 002 finds ~4 KB) at the cost
    /// of one more read per get. Default: false (RocksDB).
    pub enable_blob_files: bool,
    /// Bytes from which a value is separated into a blob file (with `enable_blob_files`).
    /// Raise it to keep small values inline (a separated value costs one more read per get):
    /// near the size from which separation pays (seed 002 measures it). Default: 0 (every
    /// value, RocksDB).
    pub min_blob_size: u64,
    /// Bytes at which a blob file is finished and the next one started. Smaller files free
    /// space sooner under garbage collection, at more files open. Default: 256 MiB.
    pub blob_file_size: u64,
    /// Compression of each value in a blob file: as `compression`, for values. Default: none
    /// (RocksDB).
    pub blob_compression_type: Compression,
    /// Let compactions rewrite the live values of the oldest blob files into new ones, so that
    /// those files become all garbage and are deleted. Without it, space of overwritten values
    /// comes back only when every value of a blob file is dead. Default: false (RocksDB).
    pub enable_blob_garbage_collection: bool,
    /// Fraction of blob files, oldest first, whose live values compactions relocate when
    /// garbage collection is on. Higher: space back sooner, more values rewritten.
    /// Default: 0.25 (RocksDB).
    pub blob_garbage_collection_age_cutoff: f64,
    /// With garbage collection on, when the oldest `blob_garbage_collection_age_cutoff`
    /// fraction of blob files is at least this fraction garbage, the table referencing the oldest
    /// of them is compacted even if the tree needs no compaction, so that those files die.
    /// Lower: less space, more rewriting. Default: 1.0 (RocksDB; never forces, since an
    /// all-garbage file is deleted anyway).
    pub blob_garbage_collection_force_threshold: f64,

    // Layout: the policy that shapes the tree.
    /// The policy that shapes the tree: leveled, the FSLSM-Tree (float-up and stretch), or
    /// universal (tiered) compaction. [`Options::apply_layout_preset`] sets it with key-value
    /// separation as seed 003's `leveldb`, `wisckey` and `fslsm` engines. Change it to study
    /// the FSLSM-Tree's adaptive shape (docs/fslsm.md) or to trade read for write
    /// amplification with universal compaction (docs/compaction.md). Default: leveled.
    pub layout: Layout,
    /// Parameters of the FSLSM-Tree (used with [`Layout::Fslsm`]); each says when to change
    /// it. Default: the paper's.
    pub fslsm: FslsmOptions,
    /// Parameters of universal compaction (used with [`Layout::Universal`]); each says when
    /// to change it. Default: RocksDB's.
    pub universal: UniversalOptions,

    // Observability.
    /// Record latency histograms (`rocksdb.db.get.micros`, …). Tickers are always counted.
    /// Turn it on to see latency distributions and file I/O times. Default: false, since timing
    /// every operation costs two clock reads.
    pub statistics: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            // Parameters that affect behaviour.
            create_if_missing: true,
            error_if_exists: false,
            paranoid_checks: true,
            wal_recovery_mode: WalRecoveryMode::PointInTimeRecovery,
            fs: Arc::new(PosixFs),
            // The write path: memtables, the WAL, and when writers are slowed or stopped.
            write_buffer_size: 64 << 20,
            max_write_buffer_number: 2,
            db_write_buffer_size: 0,
            wal_dir: None,
            bytes_per_sync: 0,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            delayed_write_rate: 16 << 20,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            // Compaction and the shape of the tree.
            num_levels: 7,
            level0_file_num_compaction_trigger: 4,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            level_compaction_dynamic_level_bytes: false,
            max_files_for_level_base: 0,
            max_obsolete_percent: 5,
            target_file_size_base: 64 << 20,
            compaction_victims: CompactionVictims::MinOverlap,
            max_background_jobs: 2,
            disable_auto_compactions: false,
            deterministic_background: false,
            // Tables and the read path.
            block_size: 4096,
            block_restart_interval: 16,
            compression: Compression::None,
            compression_per_level: Vec::new(),
            block_cache_size: 8 << 20,
            allow_mmap_reads: false,
            // Filters.
            filter: FilterOptions::default(),
            // Blob files (key-value separation).
            enable_blob_files: false,
            min_blob_size: 0,
            blob_file_size: 256 << 20,
            blob_compression_type: Compression::None,
            enable_blob_garbage_collection: false,
            blob_garbage_collection_age_cutoff: 0.25,
            blob_garbage_collection_force_threshold: 1.0,
            // Layout: the policy that shapes the tree.
            layout: Layout::Leveled,
            fslsm: FslsmOptions::default(),
            universal: UniversalOptions::default(),
            // Observability.
            statistics: false,
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Options")
            .field("write_buffer_size", &self.write_buffer_size)
            .field("max_write_buffer_number", &self.max_write_buffer_number)
            .field("db_write_buffer_size", &self.db_write_buffer_size)
            .field(
                "level0_file_num_compaction_trigger",
                &self.level0_file_num_compaction_trigger,
            )
            .field("max_bytes_for_level_base", &self.max_bytes_for_level_base)
            .field("target_file_size_base", &self.target_file_size_base)
            .field("num_levels", &self.num_levels)
            .field("block_size", &self.block_size)
            .field("compression", &self.compression)
            .field("filter", &self.filter)
            .field("enable_blob_files", &self.enable_blob_files)
            .field("min_blob_size", &self.min_blob_size)
            .field("blob_file_size", &self.blob_file_size)
            .field("blob_compression_type", &self.blob_compression_type)
            .field(
                "enable_blob_garbage_collection",
                &self.enable_blob_garbage_collection,
            )
            .field(
                "blob_garbage_collection_age_cutoff",
                &self.blob_garbage_collection_age_cutoff,
            )
            .field("layout", &self.layout)
            .field("fslsm", &self.fslsm)
            .finish_non_exhaustive()
    }
}

fn invalid(option: &str, value: impl fmt::Display, allowed: &str) -> Error {
    Error::invalid_option(option, value, allowed)
}

impl Options {
    /// Whether the active memtable, holding `active` bytes while `immutable` bytes wait for
    /// flush, is due to be switched: at `write_buffer_size`, or by the database-wide budget
    /// (`db_write_buffer_size`) as RocksDB's write buffer manager decides.
    pub(crate) fn memtable_full(&self, active: usize, immutable: usize) -> bool {
        if active >= self.write_buffer_size {
            return true;
        }
        let budget = self.db_write_buffer_size;
        budget > 0
            && (active > budget / 8 * 7 || (active + immutable >= budget && active >= budget / 2))
    }

    /// Bytes below which the active memtable is never full, whatever waits for flush.
    pub(crate) fn memtable_never_full_below(&self) -> usize {
        match self.db_write_buffer_size {
            0 => self.write_buffer_size,
            budget => self.write_buffer_size.min(budget / 2),
        }
    }

    /// How tables written by a compaction into `level` are built.
    pub fn table_options(&self, level: usize) -> crate::sst::TableOptions {
        self.table_options_for(i32::try_from(level).unwrap_or(i32::MAX), level)
    }

    /// How tables written by a flush are built (a flush counts as level −1 for filters and as
    /// level 0 for compression, as in RocksDB).
    pub fn flush_table_options(&self) -> crate::sst::TableOptions {
        self.table_options_for(crate::filter::FLUSH_LEVEL, 0)
    }

    /// The compression of tables written to `level`.
    pub fn compression_for_level(&self, level: usize) -> Compression {
        match self.compression_per_level.last() {
            None => self.compression,
            Some(&last) => self
                .compression_per_level
                .get(level)
                .copied()
                .unwrap_or(last),
        }
    }

    fn table_options_for(&self, filter_level: i32, level: usize) -> crate::sst::TableOptions {
        crate::sst::TableOptions {
            block_size: self.block_size,
            block_restart_interval: self.block_restart_interval,
            compression: self.compression_for_level(level),
            filter: self.filter.policy_for_level(filter_level).map(Arc::from),
        }
    }

    /// The directory of the write-ahead logs of a database in `db_dir`.
    pub fn wal_dir_for(&self, db_dir: &std::path::Path) -> PathBuf {
        self.wal_dir.clone().unwrap_or_else(|| db_dir.to_path_buf())
    }

    /// Checks every option; the error names the first bad one and what is allowed.
    pub fn validate(&self) -> Result<()> {
        if self.write_buffer_size < 4096 {
            return Err(invalid(
                "write_buffer_size",
                self.write_buffer_size,
                "must be at least 4096 bytes",
            ));
        }
        if self.max_write_buffer_number < 2 {
            return Err(invalid(
                "max_write_buffer_number",
                self.max_write_buffer_number,
                "must be at least 2",
            ));
        }
        if self.level0_file_num_compaction_trigger < 1 {
            return Err(invalid(
                "level0_file_num_compaction_trigger",
                0,
                "must be at least 1",
            ));
        }
        if self.level0_slowdown_writes_trigger < self.level0_file_num_compaction_trigger {
            return Err(invalid(
                "level0_slowdown_writes_trigger",
                self.level0_slowdown_writes_trigger,
                "must be at least level0_file_num_compaction_trigger",
            ));
        }
        if self.level0_stop_writes_trigger < self.level0_slowdown_writes_trigger {
            return Err(invalid(
                "level0_stop_writes_trigger",
                self.level0_stop_writes_trigger,
                "must be at least level0_slowdown_writes_trigger",
            ));
        }
        if self.delayed_write_rate < 1024 {
            return Err(invalid(
                "delayed_write_rate",
                self.delayed_write_rate,
                "must be at least 1024 bytes per second",
            ));
        }
        if self.hard_pending_compaction_bytes_limit < self.soft_pending_compaction_bytes_limit {
            return Err(invalid(
                "hard_pending_compaction_bytes_limit",
                self.hard_pending_compaction_bytes_limit,
                "must be at least soft_pending_compaction_bytes_limit",
            ));
        }
        if self.max_bytes_for_level_base < 1024 {
            return Err(invalid(
                "max_bytes_for_level_base",
                self.max_bytes_for_level_base,
                "must be at least 1024 bytes",
            ));
        }
        if !(self.max_bytes_for_level_multiplier > 1.0
            && self.max_bytes_for_level_multiplier <= 1000.0)
        {
            return Err(invalid(
                "max_bytes_for_level_multiplier",
                self.max_bytes_for_level_multiplier,
                "must be in (1, 1000]",
            ));
        }
        if self.target_file_size_base < 1024 {
            return Err(invalid(
                "target_file_size_base",
                self.target_file_size_base,
                "must be at least 1024 bytes",
            ));
        }
        if !(2..=32).contains(&self.num_levels) {
            return Err(invalid("num_levels", self.num_levels, "must be in 2..=32"));
        }
        if self.max_background_jobs < 1 {
            return Err(invalid("max_background_jobs", 0, "must be at least 1"));
        }
        if !(256..=(64 << 20)).contains(&self.block_size) {
            return Err(invalid(
                "block_size",
                self.block_size,
                "must be in 256..=67108864 bytes",
            ));
        }
        if !(1..=1024).contains(&self.block_restart_interval) {
            return Err(invalid(
                "block_restart_interval",
                self.block_restart_interval,
                "must be in 1..=1024",
            ));
        }
        // A blob file must hold at least its header, a record and its footer; 1 KiB is far
        // below any useful size and catches a unit mistake (KiB given as bytes).
        if self.blob_file_size < 1024 {
            return Err(invalid(
                "blob_file_size",
                self.blob_file_size,
                "must be at least 1024 bytes",
            ));
        }
        if !(0.0..=1.0).contains(&self.blob_garbage_collection_age_cutoff) {
            return Err(invalid(
                "blob_garbage_collection_age_cutoff",
                self.blob_garbage_collection_age_cutoff,
                "must be in [0, 1]",
            ));
        }
        if !(0.0..=1.0).contains(&self.blob_garbage_collection_force_threshold) {
            return Err(invalid(
                "blob_garbage_collection_force_threshold",
                self.blob_garbage_collection_force_threshold,
                "must be in [0, 1]",
            ));
        }
        if self.max_files_for_level_base > 1_000_000 {
            return Err(invalid(
                "max_files_for_level_base",
                self.max_files_for_level_base,
                "must be in 0..=1000000 tables (0: limits in bytes)",
            ));
        }
        if self.max_files_for_level_base > 0 && self.level_compaction_dynamic_level_bytes {
            return Err(invalid(
                "max_files_for_level_base",
                self.max_files_for_level_base,
                "must be 0 with level_compaction_dynamic_level_bytes, which sizes levels in bytes",
            ));
        }
        if self.compaction_victims == CompactionVictims::LowestFrequency {
            self.fslsm.validate()?;
        }
        if self.layout == Layout::Fslsm {
            self.fslsm.validate()?;
            if self.level_compaction_dynamic_level_bytes {
                // FSLSM stretches the static targets; sizing them from the last level up too
                // would make two policies fight over the same limits.
                return Err(invalid(
                    "level_compaction_dynamic_level_bytes",
                    true,
                    "not with the FSLSM layout, which stretches static level targets",
                ));
            }
        }
        if self.layout == Layout::Universal {
            self.validate_universal()?;
        }
        self.filter.validate()
    }
}

/// Options of one write.
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteOptions {
    /// Sync the WAL before acknowledging. Without it a process crash loses nothing but a power
    /// cut may lose the last writes. Default: false (RocksDB).
    pub sync: bool,
    /// Skip the WAL: the write is lost on any crash before the next flush. Default: false.
    pub disable_wal: bool,
}

/// Options of one read.
#[derive(Clone, Default)]
pub struct ReadOptions {
    /// Read as of this snapshot instead of the latest state.
    pub snapshot: Option<crate::Snapshot>,
    /// Do not insert blocks read into the block cache (bulk scans). Default: false.
    pub no_fill_cache: bool,
}
