//! One source for every default: `lsmlab bench`'s flags (db_bench's names and defaults) translate
//! to the engine's `Options` defaults, except where db_bench's own default differs from RocksDB's
//! `Options` (listed below, each with its reason), so a flag and an option of one name never
//! disagree by accident.

use lsmlab::Options;
use lsmlab_cli::engine::lsmlab::options;
use lsmlab_cli::flags::BenchFlags;

#[test]
fn bench_flag_defaults_are_the_engines_option_defaults() {
    let from_flags = options(&BenchFlags::default().settings().unwrap());
    let engine = Options::default();
    macro_rules! same {
        ($($field:ident),* $(,)?) => {
            $(assert_eq!(
                from_flags.$field, engine.$field,
                concat!("--", stringify!($field), " and Options::", stringify!($field))
            );)*
        };
    }
    same!(
        write_buffer_size,
        max_write_buffer_number,
        level0_file_num_compaction_trigger,
        level0_slowdown_writes_trigger,
        level0_stop_writes_trigger,
        max_bytes_for_level_base,
        max_bytes_for_level_multiplier,
        level_compaction_dynamic_level_bytes,
        target_file_size_base,
        num_levels,
        max_background_jobs,
        block_size,
        block_restart_interval,
        bytes_per_sync,
        allow_mmap_reads,
        compression,
        block_cache_size,
        disable_auto_compactions,
        enable_blob_files,
        min_blob_size,
        blob_file_size,
        blob_compression_type,
        enable_blob_garbage_collection,
        blob_garbage_collection_age_cutoff,
        blob_garbage_collection_force_threshold,
        layout,
        wal_recovery_mode,
        paranoid_checks,
        max_files_for_level_base,
        compaction_victims,
        deterministic_background,
    );
    // The FSLSM-Tree's parameters: every `--fslsm_*` flag's default is FslsmOptions's.
    let (f, e) = (&from_flags.fslsm, &engine.fslsm);
    assert_eq!(f.read_ratio_window, e.read_ratio_window);
    assert_eq!(f.frequency_window, e.frequency_window);
    assert_eq!(f.gamma, e.gamma);
    assert_eq!(f.stretch_increments, e.stretch_increments);
    assert_eq!(f.float_target, e.float_target);
    assert_eq!(f.max_float_overlap_files, e.max_float_overlap_files);
    assert_eq!(f.device_read_micros, e.device_read_micros);
    assert_eq!(f.device_write_micros, e.device_write_micros);
    // db_bench's own defaults, kept so that a db_bench command line means the same here:
    // --delayed_write_rate is 8 MiB/s in db_bench, 16 MiB/s in RocksDB's Options.
    assert_eq!(from_flags.delayed_write_rate, 8 << 20);
    assert_eq!(engine.delayed_write_rate, 16 << 20);
}
