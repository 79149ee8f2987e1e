//! What a driver asks of the store it opens, in one engine-neutral struct: the drivers
//! (`lsmlab bench` from db_bench's flags, `lsmlab ycsb` from its `-p` properties) fill it, and
//! every engine adapter reads it and maps it onto its own options.
//!
//! Fields carry db_bench's flag names: they are the vocabulary the drivers share, the names
//! the support tables (`support.rs`) refuse by, and the names RocksDB's own options have.
//! Values are typed and already checked for text (a compression is a [`Compression`], not a
//! name); range checks are each engine's (lsmlab's in `Options::validate`).

use lsmlab::options::UniversalOptions;
use lsmlab::{CompactionVictims, Compression, FslsmOptions};

/// The settings of one store. Sections follow the engine's `Options`.
#[derive(Debug, Clone)]
pub struct EngineSettings {
    /// Directory of the database.
    pub path: String,

    // Write path.
    /// Bytes a memtable gathers before it is flushed.
    pub write_buffer_size: usize,
    /// Memtables (active plus immutable) before writes stop.
    pub max_write_buffer_number: usize,
    /// Bytes all memtables together should hold; 0: no database-wide budget.
    pub db_write_buffer_size: usize,
    /// Sync the WAL on every write.
    pub sync: bool,
    /// Write without the WAL.
    pub disable_wal: bool,
    /// Directory of the write-ahead logs; `None`: the database directory.
    pub wal_dir: Option<String>,
    /// Bytes per second writes may go while level 0 is over the slowdown trigger.
    pub delayed_write_rate: u64,
    /// Table and blob files start their writeback every this many bytes (0: off).
    pub bytes_per_sync: u64,

    // Shape of the tree and compaction.
    /// Number of levels, level 0 included.
    pub num_levels: usize,
    /// Target size of level 1.
    pub max_bytes_for_level_base: u64,
    /// Growth factor between level targets.
    pub max_bytes_for_level_multiplier: f64,
    /// Size the levels from the last one up (RocksDB's dynamic level bytes).
    pub level_compaction_dynamic_level_bytes: bool,
    /// Size at which compaction output is cut into a new table.
    pub target_file_size_base: u64,
    /// Level-0 files that trigger a compaction.
    pub level0_file_num_compaction_trigger: usize,
    /// Level-0 files at which writes slow down.
    pub level0_slowdown_writes_trigger: usize,
    /// Level-0 files at which writes stop.
    pub level0_stop_writes_trigger: usize,
    /// Background flush and compaction threads.
    pub max_background_jobs: usize,
    /// Never compact automatically.
    pub disable_auto_compactions: bool,

    // Tables and the read path.
    /// Bytes of user data per data block.
    pub block_size: usize,
    /// Keys between restart points in a data block.
    pub block_restart_interval: usize,
    /// Compression of table blocks.
    pub compression_type: Compression,
    /// Levels below this one are written uncompressed; `None`: every level is compressed.
    pub min_level_to_compress: Option<usize>,
    /// Bytes of block cache; 0: none.
    pub cache_size: usize,
    /// Read tables and blob files through memory maps.
    pub mmap_read: bool,

    // Filters.
    /// Bloom (or Ribbon) bits per key; 0 or less: no filter.
    pub bloom_bits: f64,
    /// Ribbon filters instead of Bloom.
    pub use_ribbon_filter: bool,
    /// With Ribbon: tables written to levels below this one get Bloom (a flush is level -1).
    pub bloom_before_level: i32,
    /// No filter on the last level (RocksDB's `optimize_filters_for_hits`).
    pub optimize_filters_for_hits: bool,

    // Blob files (key-value separation).
    /// Separate values of at least `min_blob_size` bytes into blob files.
    pub enable_blob_files: bool,
    /// Values at least this large go to blob files.
    pub min_blob_size: u64,
    /// Size of a blob file.
    pub blob_file_size: u64,
    /// Compression of each value in a blob file.
    pub blob_compression_type: Compression,
    /// Garbage-collect blob files during compaction.
    pub enable_blob_garbage_collection: bool,
    /// Fraction of blob files, oldest first, whose live values compactions relocate.
    pub blob_garbage_collection_age_cutoff: f64,
    /// Garbage fraction of those oldest blob files that forces compactions.
    pub blob_garbage_collection_force_threshold: f64,

    // Observability.
    /// Record latency histograms as well as tickers.
    pub statistics: bool,

    /// What only lsmlab has: its layouts, shapes and compaction policies. The other engines
    /// refuse these when a command line sets them (`support.rs`).
    pub lsmlab: LsmlabSettings,
}

/// The lsmlab-only part of [`EngineSettings`] (seed 003's engines and the study shapes).
#[derive(Debug, Clone)]
pub struct LsmlabSettings {
    /// A layout preset (`leveldb`, `wisckey`, `fslsm`: `lsmlab::LAYOUT_PRESETS`); empty:
    /// leveled, with separation as the blob settings say.
    pub layout: String,
    /// A named tree shape (`lsmlab::SHAPES`), applied over the other settings; empty: none.
    pub shape: String,
    /// Which tables a level over its limit compacts.
    pub compaction_victims: CompactionVictims,
    /// Level limits in tables when not 0.
    pub max_files_for_level_base: u64,
    /// Percent of the live data the obsolete versions below upper tables may reach before
    /// leveled compaction reclaims them (0: never).
    pub max_obsolete_percent: u32,
    /// Flushes, compactions and float-ups in the calling thread, so that repeats count the
    /// same.
    pub deterministic_background: bool,
    /// Filter bits per key by level, level 0 first (empty: the uniform setting).
    pub bloom_bits_per_level: Vec<f64>,
    /// How the filter memory is spread over the levels.
    pub bloom_allocation: lsmlab::filter::FilterAllocation,
    /// The FSLSM-Tree's parameters (used with the `fslsm` layout, and for the frequency
    /// window of `compaction_victims`).
    pub fslsm: FslsmOptions,
    /// Universal compaction (db_bench's `--compaction_style=1`; the `universal` layout preset
    /// sets it too).
    pub universal_compaction: bool,
    /// Universal compaction's parameters (used when it runs).
    pub universal: UniversalOptions,
}
