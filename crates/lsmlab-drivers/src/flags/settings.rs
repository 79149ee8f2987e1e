//! What the flags describe for the engine: typed values of the flags that name things
//! (compressions, victims, the engine), and the engine-neutral [`EngineSettings`] every
//! engine adapter reads.

use super::table::BenchFlags;
use crate::engine::{EngineKind, EngineSettings, LsmlabSettings};
use crate::error::{CliError, CliResult};
use lsmlab::filter::FilterAllocation;
use lsmlab::options::{
    parse_increments, CompactionVictims, FloatTarget, FslsmOptions, UniversalOptions,
};
use lsmlab::Compression;

/// How `--compression_type` names `c` (the inverse of [`Compression::parse`] on db_bench's
/// spellings).
pub fn compression_flag_value(c: Compression) -> &'static str {
    match c {
        Compression::None => "none",
        Compression::Snappy => "snappy",
        Compression::Lz4 => "lz4",
        Compression::Zstd => "zstd",
    }
}

impl BenchFlags {
    /// The compression of `--compression_type`.
    pub fn compression(&self) -> CliResult<Compression> {
        Compression::parse(&self.compression_type).map_err(|_| {
            CliError::new(format!(
                "--compression_type: invalid value {:?}: allowed none, snappy, lz4, zstd (lsmlab has no zlib, bzip2)",
                self.compression_type
            ))
        })
    }

    /// The compression of `--blob_compression_type`.
    pub fn blob_compression(&self) -> CliResult<Compression> {
        Compression::parse(&self.blob_compression_type).map_err(|_| {
            CliError::new(format!(
                "--blob_compression_type: invalid value {:?}: allowed none, snappy, lz4, zstd (lsmlab has no zlib, bzip2)",
                self.blob_compression_type
            ))
        })
    }

    /// The victims of `--compaction_victims`.
    pub fn compaction_victims(&self) -> CliResult<CompactionVictims> {
        CompactionVictims::parse(&self.compaction_victims).map_err(|_| {
            CliError::new(format!(
                "--compaction_victims: invalid value {:?}: allowed: overlap, frequency",
                self.compaction_victims
            ))
        })
    }

    /// The FSLSM-Tree's parameters of the `--fslsm_*` flags (text checked, ranges not).
    pub fn fslsm(&self) -> CliResult<FslsmOptions> {
        let stretch_increments = parse_increments(&self.fslsm_stretch_increments).map_err(|_| {
            CliError::new(format!(
                "--fslsm_stretch_increments: invalid value {:?}: allowed: comma-separated whole numbers, e.g. 20,10,5,0",
                self.fslsm_stretch_increments
            ))
        })?;
        let float_target = FloatTarget::parse(&self.fslsm_float_target).map_err(|_| {
            CliError::new(format!(
                "--fslsm_float_target: invalid value {:?}: allowed: level0, cost, off",
                self.fslsm_float_target
            ))
        })?;
        Ok(FslsmOptions {
            read_ratio_window: self.fslsm_read_ratio_window,
            frequency_window: self.fslsm_frequency_window,
            gamma: self.fslsm_gamma,
            stretch_increments,
            float_target,
            max_float_overlap_files: self.fslsm_max_float_overlap_files,
            device_read_micros: self.fslsm_device_read_micros,
            device_write_micros: self.fslsm_device_write_micros,
        })
    }

    /// The bits per key of `--bloom_bits_per_level` (empty: none given).
    pub fn bloom_bits_per_level(&self) -> CliResult<Vec<f64>> {
        let list = self.bloom_bits_per_level.trim();
        if list.is_empty() {
            return Ok(Vec::new());
        }
        list.split(',')
            .map(|b| match b.trim().parse::<f64>() {
                Ok(v) if (0.0..=lsmlab::filter::MAX_BITS_PER_KEY).contains(&v) => Ok(v),
                _ => Err(CliError::new(format!(
                    "--bloom_bits_per_level: invalid value {:?}: allowed: comma-separated bits per key in [0, 100], level 0 first, e.g. 10,10,8",
                    self.bloom_bits_per_level
                ))),
            })
            .collect()
    }

    /// The allocation of `--bloom_allocation`.
    pub fn bloom_allocation(&self) -> CliResult<FilterAllocation> {
        FilterAllocation::parse(&self.bloom_allocation).map_err(|_| {
            CliError::new(format!(
                "--bloom_allocation: invalid value {:?}: allowed: uniform, monkey",
                self.bloom_allocation
            ))
        })
    }

    /// Universal compaction's parameters of the `--universal_*` flags: 0 is RocksDB's default,
    /// as db_bench reads them; a negative value is refused.
    pub fn universal(&self) -> CliResult<UniversalOptions> {
        let d = UniversalOptions::default();
        let value = |name: &str, v: i32, default: u32| -> CliResult<u32> {
            match u32::try_from(v) {
                Ok(0) => Ok(default),
                Ok(v) => Ok(v),
                Err(_) => Err(CliError::new(format!(
                    "--{name}: invalid value {v}: must be at least 0 (0: RocksDB's default, {default})"
                ))),
            }
        };
        Ok(UniversalOptions {
            size_ratio: value(
                "universal_size_ratio",
                self.universal_size_ratio,
                d.size_ratio,
            )?,
            min_merge_width: value(
                "universal_min_merge_width",
                self.universal_min_merge_width,
                d.min_merge_width,
            )?,
            max_merge_width: value(
                "universal_max_merge_width",
                self.universal_max_merge_width,
                d.max_merge_width,
            )?,
            max_size_amplification_percent: value(
                "universal_max_size_amplification_percent",
                self.universal_max_size_amplification_percent,
                d.max_size_amplification_percent,
            )?,
            allow_trivial_move: self.universal_allow_trivial_move,
            stop_style: d.stop_style,
        })
    }

    /// The engine of `--engine`.
    pub fn engine_kind(&self) -> CliResult<EngineKind> {
        EngineKind::parse("--engine", &self.engine)
    }

    /// The engine settings these flags describe; an error names a flag whose text is not a
    /// value of its kind (ranges are the engine's to check).
    pub fn settings(&self) -> CliResult<EngineSettings> {
        Ok(EngineSettings {
            path: self.db_path(),
            write_buffer_size: self.write_buffer_size,
            max_write_buffer_number: self.max_write_buffer_number,
            db_write_buffer_size: self.db_write_buffer_size,
            sync: self.sync,
            disable_wal: self.disable_wal,
            wal_dir: (!self.wal_dir.is_empty()).then(|| self.wal_dir.clone()),
            delayed_write_rate: self.delayed_write_rate,
            bytes_per_sync: self.bytes_per_sync,
            num_levels: self.num_levels,
            max_bytes_for_level_base: self.max_bytes_for_level_base,
            max_bytes_for_level_multiplier: self.max_bytes_for_level_multiplier,
            level_compaction_dynamic_level_bytes: self.level_compaction_dynamic_level_bytes,
            target_file_size_base: self.target_file_size_base,
            level0_file_num_compaction_trigger: self.level0_file_num_compaction_trigger,
            level0_slowdown_writes_trigger: self.level0_slowdown_writes_trigger,
            level0_stop_writes_trigger: self.level0_stop_writes_trigger,
            max_background_jobs: self.max_background_jobs,
            disable_auto_compactions: self.disable_auto_compactions,
            block_size: self.block_size,
            block_restart_interval: self.block_restart_interval,
            compression_type: self.compression()?,
            min_level_to_compress: usize::try_from(self.min_level_to_compress).ok(),
            cache_size: usize::try_from(self.cache_size).unwrap_or(0),
            mmap_read: self.mmap_read,
            statistics: self.statistics,
            bloom_bits: self.bloom_bits,
            use_ribbon_filter: self.use_ribbon_filter,
            bloom_before_level: self.bloom_before_level,
            optimize_filters_for_hits: self.optimize_filters_for_hits,
            enable_blob_files: self.enable_blob_files,
            min_blob_size: self.min_blob_size,
            blob_file_size: self.blob_file_size,
            blob_compression_type: self.blob_compression()?,
            enable_blob_garbage_collection: self.enable_blob_garbage_collection,
            blob_garbage_collection_age_cutoff: self.blob_garbage_collection_age_cutoff,
            blob_garbage_collection_force_threshold: self.blob_garbage_collection_force_threshold,
            lsmlab: LsmlabSettings {
                layout: self.layout.clone(),
                shape: self.shape.clone(),
                compaction_victims: self.compaction_victims()?,
                max_files_for_level_base: self.max_files_for_level_base,
                max_obsolete_percent: self.max_obsolete_percent,
                deterministic_background: self.deterministic_background,
                bloom_bits_per_level: self.bloom_bits_per_level()?,
                bloom_allocation: self.bloom_allocation()?,
                fslsm: self.fslsm()?,
                universal_compaction: self.compaction_style == 1,
                universal: self.universal()?,
            },
        })
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
}
